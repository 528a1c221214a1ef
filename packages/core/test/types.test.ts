import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type Connection, createGatehouse, jsonSchema } from '../src/index.js';
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
});
