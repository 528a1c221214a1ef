import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  ALLOW,
  type CallResult,
  type Connection,
  createGatehouse,
  defineGuard,
  type Guard,
  jsonSchema,
  MemoryAuditStore,
  MemoryReplayStore,
  separateCommits,
  ToolError,
} from '../src/index.js';
import { bookingCreateTools, listPresenter } from './fixtures.js';

const gh = createGatehouse({ rights: ['r'], services: () => ({}) });
const presenter = listPresenter<{ ok: boolean }>(['ok']);
const toolWith = (input: Parameters<typeof gh.defineTool>[0]['input']) =>
  gh.defineTool({
    name: 'probe',
    description: 'Probes input handling.',
    effect: 'read',
    input,
    presenter,
    run: () => ({ ok: true }),
  });

const refusal = async (tool: ReturnType<typeof toolWith>, args: unknown): Promise<ToolError> => {
  const error = await tool.runtime.input.parse(args).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!ToolError.is(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
};

const at = '2026-03-30T09:30';

describe('compileInput (through defineTool): unknown arguments at any depth (I14)', () => {
  it('refuses a key a union branch does not declare, naming its path and that branch’s keys, for z.object and z.strictObject alike', async () => {
    const loose = toolWith(
      z.object({ starts_at: z.union([z.string(), z.object({ local: z.string(), zone: z.string() })]) }),
    );
    const strict = toolWith(
      z.strictObject({
        starts_at: z.union([z.string(), z.strictObject({ local: z.string(), zone: z.string() })]),
      }),
    );
    expect(loose.listing.inputSchema).toEqual(strict.listing.inputSchema);
    for (const tool of [loose, strict]) {
      const error = await refusal(tool, { starts_at: { local: at, zone: 'Europe/Berlin', surprise: 1 } });
      expect(error.code).toBe('unknown_arguments');
      expect(error.details).toEqual({
        unknown: ['starts_at.surprise'],
        path: 'starts_at.surprise',
        allowed: ['local', 'zone'],
      });
      expect(error.fix).toBe('Remove the unknown arguments. Allowed at starts_at: local, zone.');
      await expect(
        tool.runtime.input.parse({ starts_at: { local: at, zone: 'Europe/Berlin' } }),
      ).resolves.toEqual({ starts_at: { local: at, zone: 'Europe/Berlin' } });
    }
  });

  it('refuses an unknown key four levels down, through optional and nullable objects', async () => {
    const tool = toolWith(
      z.object({
        visit: z.object({
          site: z.object({ access: z.object({ code: z.string(), floor: z.int() }).nullable() }).optional(),
        }),
      }),
    );
    const error = await refusal(tool, {
      visit: { site: { access: { code: '12', floor: 2, tenant: 't2' } } },
    });
    expect(error.details).toEqual({
      unknown: ['visit.site.access.tenant'],
      path: 'visit.site.access.tenant',
      allowed: ['code', 'floor'],
    });
  });

  it('refuses an unknown key inside an array of objects, naming the item', async () => {
    const stop = z.object({ at: z.string(), note: z.string().optional() });
    const plain = toolWith(z.object({ stops: z.array(stop) }));
    const either = toolWith(z.object({ stops: z.array(z.union([z.string(), stop])) }));
    for (const tool of [plain, either]) {
      const error = await refusal(tool, { stops: [{ at: 'a' }, 'b', { at: 'c', surprise: true }] });
      expect(error.details).toEqual({
        unknown: ['stops[2].surprise'],
        path: 'stops[2].surprise',
        allowed: ['at', 'note'],
      });
    }
  });

  it('picks the branch of a discriminated union by its tag', async () => {
    const tool = toolWith(
      z.object({
        contact: z.discriminatedUnion('kind', [
          z.object({ kind: z.literal('call'), phone: z.string() }),
          z.object({ kind: z.literal('mail'), address: z.string() }),
        ]),
      }),
    );
    const error = await refusal(tool, { contact: { kind: 'mail', address: 'a@b.c', phone: '1' } });
    expect(error.details).toMatchObject({ path: 'contact.phone', allowed: ['kind', 'address'] });
  });

  it('follows $ref into recursive schemas and record values', async () => {
    const node: z.ZodType<{ name: string; children?: unknown[] }> = z.object({
      name: z.string(),
      get children() {
        return z.array(node).optional();
      },
    });
    const tree = toolWith(z.object({ tree: node }));
    const deep = { tree: { name: 'a', children: [{ name: 'b', children: [{ name: 'c', colour: 'red' }] }] } };
    expect((await refusal(tree, deep)).details).toMatchObject({
      path: 'tree.children[0].children[0].colour',
      allowed: ['name', 'children'],
    });
    const lines = toolWith(z.object({ lines: z.record(z.string(), z.object({ qty: z.int() })) }));
    expect((await refusal(lines, { lines: { boiler: { qty: 1, discount: 5 } } })).details).toEqual({
      unknown: ['lines.boiler.discount'],
      path: 'lines.boiler.discount',
      allowed: ['qty'],
    });
  });

  it('refuses an unknown key in an anyOf of a raw JSON Schema with unknown_arguments, not a schema error', async () => {
    const tool = toolWith(
      jsonSchema<{ when: unknown }>({
        type: 'object',
        properties: { when: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/local' }] } },
        required: ['when'],
        $defs: {
          local: { type: 'object', properties: { local: { type: 'string' }, zone: { type: 'string' } } },
        },
      }),
    );
    const error = await refusal(tool, { when: { local: at, zone: 'UTC', offset: '+01:00' } });
    expect(error.code).toBe('unknown_arguments');
    expect(error.details).toMatchObject({ path: 'when.offset', allowed: ['local', 'zone'] });
  });

  it('refuses an own __proto__ key as unknown', async () => {
    const tool = toolWith(z.object({ query: z.string() }));
    const error = await refusal(tool, JSON.parse('{"query":"x","__proto__":{"polluted":true}}'));
    expect(error.details).toEqual({ unknown: ['__proto__'], path: '__proto__', allowed: ['query'] });
  });
});

const connection: Connection<'bookings.write'> = {
  connectionId: 'conn_1',
  tenantId: 't1',
  creatorId: 'p1',
  clientName: 'test',
  channel: 'mcp',
  rights: new Set(['bookings.write'] as const),
};

const bookings = createGatehouse({
  rights: ['bookings.write'] as const,
  services: () => ({
    find: () => undefined,
    create: (customer: string, day: string) => ({ id: 'b1', customer, day }),
  }),
});
const bookingTools = bookingCreateTools(
  bookings,
  listPresenter<{ id: string; customer: string; day: string }>(['id', 'customer', 'day']),
  (id, day) => ({ id, customer: 'c', day }),
);

/** A server with a create tool: its own arguments, plus the replay stage's and the duplicate check's. */
function createServer(guards: readonly Guard[] = []) {
  return bookings.createServer(
    withGuards({
      name: 'bookings',
      version: '1.0.0',
      tools: [...bookingTools],
      guards,
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit: new MemoryAuditStore(),
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
    }),
  );
}

const errorOf = (result: CallResult) =>
  (result.structuredContent as { error: { code: string; details: Record<string, unknown> } }).error;

const EVERY_ARGUMENT = ['customer', 'day', 'note', 'idempotency_key', 'separate', 'reason'];

describe('GatehouseServer.callTool: the top-level allowed list', () => {
  const server = createServer();

  it('names every argument the tool takes, guard-owned ones included, when a top-level key is unknown', async () => {
    for (const key of ['surprise', 'a.b']) {
      const error = errorOf(
        await server.callTool(connection, 'create_booking', { customer: 'c', day: 'mon', [key]: 1 }),
      );
      expect(error).toMatchObject({
        code: 'unknown_arguments',
        details: { unknown: [key], path: key, allowed: EVERY_ARGUMENT },
      });
    }
  });

  it('names the same list when an argument fails its rules, in the tool’s schema or a guard’s', async () => {
    const own = errorOf(await server.callTool(connection, 'create_booking', { customer: 'c', day: 7 }));
    const guards = errorOf(
      await server.callTool(connection, 'create_booking', {
        customer: 'c',
        day: 'mon',
        idempotency_key: 'no',
      }),
    );
    for (const error of [own, guards]) {
      expect(error.code).toBe('invalid_arguments');
      expect(error.details.allowed).toEqual(EVERY_ARGUMENT);
    }
  });

  it('makes an object a guard takes refuse unknown keys, and advertises it so', async () => {
    const window = defineGuard({
      kind: 'call',
      name: 'window',
      arguments: {
        window: {
          schema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
        },
      },
      check: () => ALLOW,
    });
    const server = createServer([window]);
    const listed = (await server.listTools(connection)).find((tool) => tool.name === 'create_booking');
    expect(listed?.inputSchema.properties).toMatchObject({ window: { additionalProperties: false } });
    const error = errorOf(
      await server.callTool(connection, 'create_booking', {
        customer: 'c',
        day: 'mon',
        window: { from: 'a', to: 'b', zone: 'UTC' },
      }),
    );
    expect(error.code).toBe('invalid_arguments');
    expect(error.details.issues).toEqual([
      { path: 'window', message: 'does not match its schema (see tools/list)' },
    ]);
  });
});
