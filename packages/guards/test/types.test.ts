import { ALLOW, createGatehouse, type UnitGuard } from '@gatehousejs/core';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { batchCountGuard, duplicateGuard, type InputKey, toolGuards, versionGuard } from '../src/index.js';

// These tests run under `tsc` (npm run typecheck): a wrong type fails CI.
type UpdateInput = { readonly id: string; readonly version: string; readonly note?: string };
type Services = { readonly notes: { current(id: string): { version: string } | undefined } };

const current = () => undefined;

describe('versionGuard types', () => {
  it('takes only a key of the tool’s input as its field', () => {
    expectTypeOf<InputKey<UpdateInput>>().toEqualTypeOf<'id' | 'version' | 'note'>();
    versionGuard<UpdateInput, Services>({ field: 'version', current });
    // @ts-expect-error a misspelt field is a compile error
    versionGuard<UpdateInput, Services>({ field: 'verzion', current });
  });

  it('takes any field while the input type is unknown', () => {
    expectTypeOf<InputKey<unknown>>().toEqualTypeOf<string>();
    versionGuard({ field: 'revision', current });
  });

  it('returns a unit guard typed by the input and services it was given', () => {
    expectTypeOf(versionGuard<UpdateInput, Services>({ current })).toEqualTypeOf<
      UnitGuard<UpdateInput, Services>
    >();
    expectTypeOf(
      batchCountGuard<UpdateInput, Services>({ match: () => ({ total: 0, sample: [] }) }),
    ).toEqualTypeOf<UnitGuard<UpdateInput, Services>>();
    expectTypeOf(
      duplicateGuard<UpdateInput, Services>({
        key: () => ({}),
        find: () => undefined,
        updateTool: 'update_note',
      }),
    ).toEqualTypeOf<UnitGuard<UpdateInput, Services>>();
  });
});

/** A host that binds the guard kit once: `g.version`, `g.batchCount` and `g.duplicate` in every tool. */
const gh = createGatehouse({
  rights: ['notes.write'] as const,
  services: (): Services => ({ notes: { current: () => undefined } }),
  toolGuards,
});
const presenter = { outputSchema: { type: 'object' }, present: () => ({}) };
const updateInput = z.object({ id: z.string(), version: z.string(), text: z.string() });

describe('toolGuards bound with createGatehouse({ toolGuards })', () => {
  it('checks g.version’s field against the tool’s input', () => {
    gh.defineTool({
      name: 'update_note',
      description: 'Updates a note.',
      effect: 'write',
      input: updateInput,
      presenter,
      guards: (g) => [
        g.version({
          field: 'version',
          current: ({ input, services }) => {
            expectTypeOf(input).toEqualTypeOf<{ id: string; version: string; text: string }>();
            expectTypeOf(services).toEqualTypeOf<Services>();
            return services.notes.current(input.id) && { version: 'v1', object: {} };
          },
        }),
      ],
      run: () => ({}),
    });
    gh.defineTool({
      name: 'edit_note',
      description: 'Edits a note.',
      effect: 'write',
      input: updateInput,
      presenter,
      guards: (g) => [
        g.version({
          // @ts-expect-error a misspelt field is a compile error: the tool's input has no `verzion`
          field: 'verzion',
          current: () => undefined,
        }),
      ],
      run: () => ({}),
    });
  });

  it('types g.duplicate, g.batchCount and g.define by the tool’s input and the host’s services', () => {
    gh.defineTool({
      name: 'create_note',
      description: 'Creates a note.',
      effect: 'write',
      input: z.object({ text: z.string() }),
      presenter,
      guards: (g) => [
        g.duplicate({
          updateTool: 'update_note',
          // @ts-expect-error the tool's input has no `title`
          key: (input) => ({ title: input.title }),
          find: ({ services }) => {
            expectTypeOf(services).toEqualTypeOf<Services>();
            return undefined;
          },
        }),
      ],
      run: () => ({}),
    });
    gh.defineTool({
      name: 'archive_notes',
      description: 'Archives notes.',
      effect: 'write',
      input: z.object({ ids: z.array(z.string()).optional(), expected_count: z.number().optional() }),
      presenter,
      guards: (g) => [
        g.batchCount({
          match: ({ input }) => {
            expectTypeOf(input.ids).toEqualTypeOf<string[] | undefined>();
            return { total: 0, sample: [] };
          },
        }),
        g.define({
          kind: 'unit',
          name: 'typed',
          check: ({ input, services }) => {
            // @ts-expect-error the tool's input has no `filter`
            void input.filter;
            expectTypeOf(services).toEqualTypeOf<Services>();
            return ALLOW;
          },
        }),
      ],
      run: () => ({}),
    });
  });
});
