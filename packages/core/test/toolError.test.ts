/**
 * `createGatehouse({ toolError })`: services throw the host's own domain
 * errors; the mapping turns them into tool errors where host code runs
 * (`run`, `prepare`, a unit guard's `check`), and nothing else changes:
 * a write that fails leaves no row, an unmapped error stays internal.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  ALLOW,
  ConfigurationError,
  createGatehouse,
  type ErrorFacts,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type ToolErrorInit,
  type UnitOfWork,
} from '../src/index.js';
import { connectionWith, listPresenter } from './fixtures.js';

/** The host's own error, as its services throw it: no MCP in sight. */
class DomainError extends Error {
  constructor(
    readonly kind: 'missing' | 'stale',
    readonly id: string,
  ) {
    super(`${kind} ${id}`);
  }
}

const SECRET = 'postgres://admin:hunter2@db/prod';

function toToolError(error: unknown): ToolErrorInit | undefined {
  if (!(error instanceof DomainError)) return undefined;
  return error.kind === 'missing'
    ? {
        code: 'not_found',
        message: `Item ${error.id} does not exist.`,
        fix: 'Search with find_items.',
        next: { tool: 'find_items' },
      }
    : {
        code: 'conflict',
        message: `Item ${error.id} changed.`,
        fix: 'Read it again.',
        details: { id: error.id },
      };
}

interface Item {
  readonly id: string;
  readonly name: string;
}

/** A unit of work that stages writes and applies them only when the work succeeds. */
function stagingUnit(rows: Item[]): UnitOfWork<Item[]> {
  return {
    atomic: true,
    async run(work) {
      const staged: Item[] = [];
      const result = await work(staged);
      rows.push(...staged);
      return result;
    },
  };
}

function app(toolError: ((error: unknown) => ToolErrorInit | undefined) | undefined = toToolError) {
  const rows: Item[] = [];
  const reports: { error: unknown; report: ErrorFacts }[] = [];
  const audit = new MemoryAuditStore();
  const gh = createGatehouse({
    rights: ['items'] as const,
    toolError,
    services: (_connection, _ports, unit: Item[] | undefined) => ({
      add(item: Item) {
        unit!.push(item);
        return item;
      },
      get(id: string): Item {
        const found = rows.find((r) => r.id === id);
        if (!found) throw new DomainError('missing', id);
        return found;
      },
      fail(error: unknown): never {
        throw error;
      },
    }),
  });
  const presenter = listPresenter<{ id: string; name: string }>(['id', 'name']);
  const input = z.object({ id: z.string(), name: z.string() });
  const tools = [
    gh.defineTool({
      name: 'get_item',
      description: 'Returns one item.',
      effect: 'read',
      requires: ['items'],
      input: z.object({ id: z.string() }),
      presenter,
      run: ({ input, services }) => services.get(input.id),
    }),
    gh.defineTool({
      name: 'rename_item',
      description: 'Stores an item, then finds it changed underneath.',
      effect: 'write',
      requires: ['items'],
      input,
      presenter,
      run: ({ input, services }) => {
        services.add(input);
        return services.fail(new DomainError('stale', input.id));
      },
    }),
    gh.defineTool({
      name: 'tag_item',
      description: 'Tags an item its unit guard must find first.',
      effect: 'write',
      requires: ['items'],
      input,
      presenter,
      guards: (g) => [
        g.define({
          kind: 'unit',
          name: 'exists',
          check: ({ input, services }) => {
            services.get(input.id);
            return ALLOW;
          },
        }),
      ],
      run: ({ input, services }) => services.add(input),
    }),
    gh.defineTool({
      name: 'email_item',
      description: 'Emails an item to its owner.',
      effect: 'notify',
      requires: ['items'],
      input: z.object({ id: z.string() }),
      presenter,
      prepare: ({ input, services }) => ({
        summary: 'Email the owner.',
        content: { item: services.get(input.id).name },
      }),
      run: ({ input }) => ({ id: input.id, name: 'sent' }),
    }),
    gh.defineTool({
      name: 'break_item',
      description: 'Fails with whatever the test hands it.',
      effect: 'write',
      requires: ['items'],
      input: z.object({ id: z.string() }),
      presenter,
      run: ({ input, services }) => services.fail(thrown.get(input.id)),
    }),
  ];
  const thrown = new Map<string, unknown>();
  const server = gh.createServer(
    withGuards({
      name: 'items',
      version: '1.0.0',
      tools,
      authenticate: async () => ({ ok: false as const, status: 401 as const, reason: 'no' }),
      audit,
      unitOfWork: stagingUnit(rows),
      replay: { store: new MemoryReplayStore() },
      confirm: { store: new MemoryPendingActionStore() },
      onError: (error, report) => reports.push({ error, report }),
    }),
  );
  const connection = connectionWith(['items'] as const);
  const call = (name: string, args: Record<string, unknown>) => server.callTool(connection, name, args);
  return { server, rows, audit, reports, thrown, call };
}

describe('createGatehouse({ toolError })', () => {
  it('renders a domain error a read throws as the tool error it maps to, reporting nothing', async () => {
    const { call, reports } = app();
    const result = await call('get_item', { id: 'i9' });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'not_found', message: 'Item i9 does not exist.', next: { tool: 'find_items' } },
    });
    expect(reports).toEqual([]);
  });

  it('maps a domain error a write throws after its insert, and leaves no row behind', async () => {
    const { call, rows, audit, reports } = app();
    const result = await call('rename_item', { id: 'i1', name: 'new' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'conflict', details: { id: 'i1' } } });
    expect(rows).toEqual([]);
    expect(audit.rows.filter((r) => r.outcome === 'ok')).toEqual([]);
    expect(reports).toEqual([]);
  });

  it("maps a domain error a unit guard's check throws, before run: nothing written", async () => {
    const { call, rows } = app();
    const result = await call('tag_item', { id: 'i2', name: 'x' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(rows).toEqual([]);
  });

  it('maps a domain error prepare throws: no preview, no pending action', async () => {
    const { call } = app();
    const result = await call('email_item', { id: 'i3' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'not_found' } });
    expect(JSON.stringify(result)).not.toContain('confirm_token');
  });

  it('leaves an error the mapping does not know unexpected: internal_error, reported, nothing leaks', async () => {
    const { call, thrown, reports, rows } = app();
    const leak = new Error(`connect ECONNREFUSED ${SECRET}`);
    thrown.set('i4', leak);
    const result = await call('break_item', { id: 'i4' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(reports.map((r) => r.error)).toEqual([leak]);
    expect(rows).toEqual([]);
  });

  it.each([
    ['a code the pipeline owns', { code: 'confirm_used', message: 'Used.', fix: 'No.' }],
    ['internal_error', { code: 'internal_error', message: 'Oops.', fix: 'No.' }],
    ['no fix', { code: 'not_found', message: 'Missing.' }],
    ['a next without a tool', { code: 'not_found', message: 'Missing.', fix: 'Find.', next: {} }],
    ['not an object', 'not_found'],
  ])(
    'treats a mapping that answers %s as a fault: internal_error, both errors reported',
    async (_name, answer) => {
      const { call, thrown, reports } = app(() => answer as unknown as ToolErrorInit);
      const original = new DomainError('missing', 'i5');
      thrown.set('i5', original);
      const result = await call('break_item', { id: 'i5' });
      expect(result.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
      expect(reports.map((r) => r.error)).toEqual([expect.any(TypeError), original]);
      expect(String(reports[0]!.error)).toContain('toolError');
    },
  );

  it('treats a mapping that throws as a fault: internal_error, its failure and the original reported', async () => {
    const failure = new Error(`mapper broke near ${SECRET}`);
    const { call, thrown, reports } = app(() => {
      throw failure;
    });
    const original = new DomainError('missing', 'i6');
    thrown.set('i6', original);
    const result = await call('break_item', { id: 'i6' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
    expect(JSON.stringify(result)).not.toContain('hunter2');
    expect(reports.map((r) => r.error)).toEqual([failure, original]);
  });

  it('refuses a toolError that is not a function', () => {
    expect(() =>
      createGatehouse({ rights: ['a'] as const, services: () => ({}), toolError: 'map' as never }),
    ).toThrow(ConfigurationError);
  });
});
