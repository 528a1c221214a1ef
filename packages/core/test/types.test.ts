import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type Connection, createGatehouse, defineGuard, jsonSchema } from '../src/index.js';
import { listPresenter } from './fixtures.js';

// These tests run under `tsc` (npm run typecheck): a wrong type fails CI.
const gh = createGatehouse({
  rights: ['bookings.read', 'bookings.write'] as const,
  services: (connection) => ({ bookings: { tenant: connection.tenantId, count: (): number => 3 } }),
});
const presenter = listPresenter<{ n: number }>(['n']);

describe('createGatehouse types', () => {
  it('types run’s input from a zod schema, and services and connection from the host', () => {
    gh.defineTool({
      name: 'count',
      description: 'Counts bookings.',
      effect: 'read',
      requires: ['bookings.read'],
      input: z.object({ from: z.string(), limit: z.number().optional() }),
      presenter,
      run: ({ input, services, connection }) => {
        expectTypeOf(input).toEqualTypeOf<{ from: string; limit?: number | undefined }>();
        expectTypeOf(services.bookings.count).returns.toEqualTypeOf<number>();
        expectTypeOf(connection).toEqualTypeOf<Connection<'bookings.read' | 'bookings.write'>>();
        return { n: services.bookings.count() };
      },
    });
  });

  it('types run’s input from jsonSchema<T>()', () => {
    gh.defineTool({
      name: 'count_raw',
      description: 'Counts bookings.',
      effect: 'read',
      input: jsonSchema<{ from: string }>({ type: 'object', properties: { from: { type: 'string' } } }),
      presenter,
      run: ({ input }) => {
        expectTypeOf(input).toEqualTypeOf<{ from: string }>();
        return { n: 1 };
      },
    });
  });

  it('refuses at compile time: an unknown right, a wrong return, prepare on a read, no prepare on notify', () => {
    const spec = { name: 'x', description: 'X.', input: z.object({}), presenter, run: () => ({ n: 1 }) };
    const bad = () => {
      // @ts-expect-error: 'bookings.delete' is not in the rights vocabulary
      gh.defineTool({ ...spec, effect: 'read', requires: ['bookings.delete'] });
      // @ts-expect-error: run must return what the presenter takes
      gh.defineTool({ ...spec, effect: 'read', run: () => ({ n: 'one' }) });
      // @ts-expect-error: read tools take no prepare
      gh.defineTool({ ...spec, effect: 'read', prepare: () => ({ content: '', summary: '' }) });
      // @ts-expect-error: notify tools need prepare
      gh.defineTool({ ...spec, effect: 'notify' });
    };
    expectTypeOf(bad).toBeFunction();
  });

  it('types a tool’s guards and its creates declaration by its input and the host’s services', () => {
    const input = z.object({ customer_id: z.string(), starts_at: z.string() });
    gh.defineTool({
      name: 'create_booking',
      description: 'Creates a booking.',
      effect: 'write',
      input,
      presenter,
      guards: [
        {
          name: 'weekdays',
          check: ({ input }) => (input.starts_at.startsWith('Sun') ? undefined : undefined),
        },
        {
          name: 'capacity',
          stage: 'unit',
          check: ({ input, services }) => {
            expectTypeOf(input.customer_id).toEqualTypeOf<string>();
            expectTypeOf(services.bookings.count).returns.toEqualTypeOf<number>();
            return undefined;
          },
        },
      ],
      creates: {
        key: (input) => ({ customer_id: input.customer_id, starts_at: input.starts_at }),
        find: ({ input, services }) =>
          services.bookings.count() > 0 ? { id: input.customer_id } : undefined,
        updateTool: 'update_booking',
      },
      run: () => ({ n: 1 }),
    });
  });

  it('refuses at compile time: a misspelled input field in creates.key or in a guard, a unit guard without check', () => {
    const spec = {
      name: 'create_booking',
      description: 'Creates a booking.',
      effect: 'write' as const,
      input: z.object({ customer_id: z.string() }),
      presenter,
      run: () => ({ n: 1 }),
    };
    const bad = () => {
      gh.defineTool({
        ...spec,
        creates: {
          // @ts-expect-error: customer_idd is not a field of the input
          key: (input) => ({ customer_id: input.customer_idd }),
          find: () => undefined,
          updateTool: 'update_booking',
        },
      });
      // @ts-expect-error: customer is not a field of the input
      gh.defineTool({ ...spec, guards: [{ name: 'g', check: ({ input }) => void input.customer }] });
      // @ts-expect-error: a unit guard needs check
      defineGuard({ name: 'unit', stage: 'unit', connection: async () => undefined });
    };
    expectTypeOf(bad).toBeFunction();
  });
});

describe('a tool’s own guards', () => {
  it('types a guard written inline through guards: (g) => [g.define(…)] with the tool’s input and services', () => {
    gh.defineTool({
      name: 'bump',
      description: 'Bumps a booking.',
      effect: 'write',
      requires: ['bookings.write'],
      input: z.object({ from: z.string(), limit: z.number().optional() }),
      presenter,
      guards: (g) => [
        g.define({
          name: 'fromNotEmpty',
          stage: 'unit',
          check: ({ input, services }) => {
            expectTypeOf(input).toEqualTypeOf<{ from: string; limit?: number | undefined }>();
            expectTypeOf(services.bookings.count).returns.toEqualTypeOf<number>();
            return input.from === ''
              ? { code: 'invalid_arguments', message: 'from is empty', fix: 'Give one.' }
              : undefined;
          },
        }),
        g.define({
          name: 'limitKnown',
          // @ts-expect-error the tool's input has no field named lmit
          check: ({ input }) => (input.lmit ? undefined : undefined),
        }),
      ],
      run: ({ services }) => ({ n: services.bookings.count() }),
    });
  });
});
