import { duplicateGuard, toolGuards } from '@gatehousejs/guards';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  ALLOW,
  allow,
  type Connection,
  createGatehouse,
  defineGuard,
  deny,
  jsonSchema,
  type UnitOfWork,
} from '../src/index.js';
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

  it('types a tool’s guards by its input and the host’s services, and its duplicate guard’s key and find', () => {
    const input = z.object({ customer_id: z.string(), starts_at: z.string() });
    gh.defineTool({
      name: 'create_booking',
      description: 'Creates a booking.',
      effect: 'write',
      input,
      presenter,
      guards: (g) => [
        g.define({
          kind: 'call',
          name: 'weekdays',
          check: ({ input }) => (input.starts_at.startsWith('Sun') ? ALLOW : ALLOW),
        }),
        g.define({
          kind: 'unit',
          name: 'capacity',
          check: ({ input, services }) => {
            expectTypeOf(input.customer_id).toEqualTypeOf<string>();
            expectTypeOf(services.bookings.count).returns.toEqualTypeOf<number>();
            return ALLOW;
          },
        }),
        duplicateGuard({
          key: (input) => ({ customer_id: input.customer_id, starts_at: input.starts_at }),
          find: ({ input, services }) =>
            services.bookings.count() > 0 ? { id: input.customer_id } : undefined,
          updateTool: 'update_booking',
        }),
      ],
      run: () => ({ n: 1 }),
    });
  });

  it('refuses at compile time: a misspelled input field in a duplicate key or a guard, a unit guard without check, a guard of a server-wide kind on a tool', () => {
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
        guards: (g) => [
          duplicateGuard({
            // @ts-expect-error: customer_idd is not a field of the input
            key: (input) => ({ customer_id: input.customer_idd }),
            find: () => undefined,
            updateTool: 'update_booking',
          }),
          // @ts-expect-error: customer is not a field of the input
          g.define({ kind: 'call', name: 'g', check: ({ input }) => (input.customer ? ALLOW : ALLOW) }),
        ],
      });
      // @ts-expect-error: a unit guard needs check
      defineGuard({ kind: 'unit', name: 'unit' });
      gh.defineTool({
        ...spec,
        // @ts-expect-error: an admission guard runs server-wide, never on a tool
        guards: [{ kind: 'admission', name: 'gate', admit: () => ALLOW }],
      });
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
          kind: 'unit',
          name: 'fromNotEmpty',
          check: ({ input, services }) => {
            expectTypeOf(input).toEqualTypeOf<{ from: string; limit?: number | undefined }>();
            expectTypeOf(services.bookings.count).returns.toEqualTypeOf<number>();
            return input.from === ''
              ? deny({ code: 'invalid_arguments', message: 'from is empty', fix: 'Give one.' })
              : ALLOW;
          },
        }),
        g.define({
          kind: 'call',
          name: 'limitKnown',
          // @ts-expect-error the tool's input has no field named lmit
          check: ({ input }) => (input.lmit ? ALLOW : ALLOW),
        }),
      ],
      run: ({ services }) => ({ n: services.bookings.count() }),
    });
  });

  it('hands what guards allow with to run as typed context', () => {
    gh.defineTool({
      name: 'get_counted',
      description: 'Reads a count.',
      effect: 'read',
      input: z.object({ from: z.string() }),
      presenter,
      guards: (g) => [
        g.define({ kind: 'call', name: 'when', check: ({ input }) => allow({ since: input.from.length }) }),
        g.define({ kind: 'call', name: 'who', check: () => allow({ reader: 'r1' as const }) }),
        g.define({ kind: 'call', name: 'silent', check: () => ALLOW }),
      ],
      run: ({ context }) => {
        expectTypeOf(context.since).toEqualTypeOf<number>();
        // a guard of the same kind that hands nothing on keeps the others' context

        expectTypeOf(context.reader).toEqualTypeOf<'r1'>();
        // @ts-expect-error no guard handed on a field named owner
        void context.owner;
        return { n: context.since };
      },
    });
    gh.defineTool({
      name: 'get_plain',
      description: 'Reads a count.',
      effect: 'read',
      input: z.object({}),
      presenter,
      run: ({ context }) => {
        // @ts-expect-error a tool without guards hands nothing on
        void context.since;
        return { n: 1 };
      },
    });
  });

  it('calls the guard factories the host bound (g.version), typed by the tool: a misspelt field does not compile', () => {
    const kit = createGatehouse({
      rights: ['bookings.write'] as const,
      services: () => ({ bookings: { version: (id: string) => id } }),
      toolGuards,
    });
    const input = z.object({ id: z.string(), version: z.string() });
    const bad = () => {
      kit.defineTool({
        name: 'update_thing',
        description: 'Updates a thing.',
        effect: 'write',
        input,
        presenter,
        guards: (g) => [
          g.version({
            field: 'version',
            current: ({ input, services }) => ({ version: services.bookings.version(input.id), object: {} }),
          }),
          // @ts-expect-error: verzion is not a key of the tool's input
          g.version({ field: 'verzion', current: () => undefined }),
        ],
        run: () => ({ n: 1 }),
      });
    };
    expectTypeOf(bad).toBeFunction();
  });
});

describe('the unit of work’s handle', () => {
  interface Database {
    readonly prepare: (sql: string) => unknown;
  }
  interface PoolClient {
    readonly query: (sql: string) => Promise<unknown>;
  }
  const databaseUnit: UnitOfWork<Database> = {
    atomic: true,
    run: (work) => work({ prepare: () => undefined }),
  };
  const poolUnit: UnitOfWork<PoolClient> = {
    atomic: true,
    run: (work) => work({ query: async () => undefined }),
  };

  it('is bound once by the services the host declares, and reaches services without a cast', () => {
    const bound = createGatehouse({
      rights: ['r'] as const,
      services: (_connection, _ports, unit: Database | undefined) => ({
        unit,
        count: () => (unit ? 1 : 0),
      }),
    });
    bound.defineTool({
      name: 'count',
      description: 'Counts.',
      effect: 'read',
      input: z.object({}),
      presenter,
      guards: (g) => [
        g.define({
          kind: 'call',
          name: 'noop',
          check: () => ALLOW,
        }),
      ],
      run: ({ services }) => {
        expectTypeOf(services.unit).toEqualTypeOf<Database | undefined>();
        return { n: services.count() };
      },
    });
    const options = {
      name: 's',
      version: '1',
      tools: [],
      authenticate: async () => ({ ok: false as const, status: 401 as const, reason: 'no' }),
      guards: [],
    };
    const bad = () => {
      bound.createServer({ ...options, unitOfWork: databaseUnit });
      // @ts-expect-error: a pool client's unit of work does not hand the database the services take
      bound.createServer({ ...options, unitOfWork: poolUnit });
    };
    expectTypeOf(bad).toBeFunction();
  });
});
