import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type TestPolicy, withGuards } from '../../../test/withGuards.js';
import {
  ALLOW,
  type CallGuard,
  type CallResult,
  ConfigurationError,
  defineGuard,
  type Effect,
  type GuardedTool,
  type JsonObject,
  deny as refuse,
  ToolError,
  type UnitGuard,
  type VisibilityGuard,
} from '../src/index.js';
import { connection, listPresenter, notesApp, type Right, writeStores } from './fixtures.js';
import { recordingLogger } from './recording.js';

const deny = async () => ({ ok: false as const, status: 401 as const, reason: 'no' });
const lastLineJson = (result: CallResult) => JSON.parse(result.content[0].text.split('\n').at(-1)!);

type NotesOptions = Parameters<ReturnType<typeof notesApp>['gh']['createServer']>[0];

function build(extra: Partial<Omit<NotesOptions, 'guards'>> & TestPolicy<Right> = {}) {
  const app = notesApp([{ id: 'n1', tenant: 't1', text: 'hello world', secret: 'DECOY-SECRET' }]);
  const stores = writeStores();
  const server = app.gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools: [app.findNotes, app.addNote],
      authenticate: deny,
      ...stores,
      ...extra,
    }),
  );
  return { ...app, server, audit: stores.audit };
}

describe('GatehouseServer.callTool', () => {
  it('runs the tool and renders one text block equal to structuredContent', async () => {
    const { server, rows } = build();
    const result = await server.callTool(connection(), 'add_note', { text: 'buy milk' });
    expect(result.isError).toBeUndefined();
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(result.structuredContent).toEqual({ status: 'ok', result: { id: 'n2', text: 'buy milk' } });
    expect(rows).toHaveLength(2);
  });

  it('validates every result against the advertised outputSchema, errors included (I19)', async () => {
    const { server, findNotes } = build();
    const validate = new Ajv2020({ strict: false }).compile(findNotes.listing.outputSchema);
    const results = [
      await server.callTool(connection(), 'find_notes', { query: 'hello' }),
      await server.callTool(connection(), 'find_notes', { query: '' }),
      await server.callTool(connection(), 'find_notes', { query: 'x', extra: 1 }),
    ];
    for (const result of results)
      expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses unknown fields before any guard or tool runs, and writes nothing (I14)', async () => {
    const seen: string[] = [];
    const spy = defineGuard({
      kind: 'call',
      name: 'spy',
      check: ({ tool }) => {
        seen.push(tool.name);
        return ALLOW;
      },
    });
    const { server, rows, services } = build({ guards: [spy] });
    const result = await server.callTool(connection(), 'add_note', { text: 'x', workspace_id: 'w2' });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toMatch(/^Error: /);
    expect(lastLineJson(result)).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'unknown_arguments', details: { allowed: ['text', 'idempotency_key'] } },
    });
    expect(seen).toEqual([]);
    expect(rows).toHaveLength(1);
    expect(services.flatMap((s) => s.calls)).toEqual([]);
  });

  it('refuses ill-formed Unicode (a lone surrogate) as invalid arguments, writing nothing', async () => {
    const { server, rows } = build();
    const result = await server.callTool(connection(), 'add_note', { text: 'half \uD800 a pair' });
    expect(result.structuredContent).toMatchObject({
      error: { code: 'invalid_arguments', details: { issues: [{ path: 'text' }] } },
    });
    expect(rows).toHaveLength(1);
    const ok = await server.callTool(connection(), 'add_note', { text: 'a whole pair \uD83D\uDE00' });
    expect(ok.isError).toBeUndefined();
  });

  it('hides a tool without the required right and refuses a call naming the right (I4, I7)', async () => {
    const { server, rows } = build();
    const readOnly = connection({ rights: new Set(['notes.read'] as const) });
    expect((await server.listTools(readOnly)).map((t) => t.name)).toEqual([
      'find_notes',
      'list_recent_changes',
    ]);
    const result = await server.callTool(readOnly, 'add_note', { text: 'x' });
    expect(result.structuredContent).toMatchObject({
      error: { code: 'missing_right', details: { missing_rights: ['notes.write'] } },
    });
    expect(rows).toHaveLength(1);
  });

  it('answers a call to a tool hidden by a visibility rule with its reason, not "unknown tool" (I7)', async () => {
    const { server, rows } = build({
      visibility: [
        (tool, c) =>
          c.toolset === 'compact' && tool.effect === 'write'
            ? { reason: 'not in the compact toolset.', fix: 'Use a full toolset token.' }
            : undefined,
      ],
    });
    const compact = connection({ toolset: 'compact' });
    expect((await server.listTools(compact)).map((t) => t.name)).toEqual([
      'find_notes',
      'list_recent_changes',
    ]);
    const result = await server.callTool(compact, 'add_note', { text: 'x' });
    expect(result.structuredContent).toMatchObject({
      error: { code: 'tool_hidden', message: expect.stringContaining('compact') },
    });
    expect(rows).toHaveLength(1);
    const unknown = await server.callTool(compact, 'drop_tables', {});
    expect(unknown.structuredContent).toMatchObject({ error: { code: 'unknown_tool' } });
  });

  it('runs server guards for the effect class, then the tool’s own, each in its stage', async () => {
    const order: string[] = [];
    const call = (name: string, effects?: readonly Effect[]): CallGuard =>
      defineGuard({
        kind: 'call',
        name,
        ...(effects ? { effects } : {}),
        check: () => {
          order.push(name);
          return ALLOW;
        },
      });
    const unit = defineGuard({
      kind: 'unit',
      name: 'unit',
      effects: ['write'],
      check: () => {
        order.push('unit');
        return ALLOW;
      },
    });
    const app = notesApp();
    const addNote = app.gh.defineTool({
      name: 'add_memo',
      description: 'Creates a memo.',
      effect: 'write',
      input: z.object({ text: z.string() }),
      presenter: listPresenter<{ id: string }>(['id']),
      guards: [call('own')],
      run: ({ input, services }) => {
        order.push('run');
        return services.notes.create(input.text);
      },
    });
    const server = app.gh.createServer(
      withGuards({
        name: 'n',
        version: '1',
        tools: [app.findNotes, addNote],
        authenticate: deny,
        ...writeStores(),
        guards: [unit, call('first'), call('writes', ['write']), call('last')],
      }),
    );
    await server.callTool(connection(), 'find_notes', { query: 'hello' });
    expect(order).toEqual(['first', 'last']);
    order.length = 0;
    await server.callTool(connection(), 'add_memo', { text: 'x' });
    expect(order).toEqual(['first', 'writes', 'last', 'own', 'unit', 'run']);
  });

  it('lets a guard refuse: the tool does not run and the refusal is rendered', async () => {
    const closed = defineGuard({
      kind: 'call',
      name: 'closed',
      effects: ['write'],
      check: () =>
        refuse({
          code: 'rate_limited',
          message: 'Too many writes.',
          fix: 'Wait 3 seconds.',
          details: { retry_after_seconds: 3 },
        }),
    });
    const { server, rows, services } = build({ guards: [closed] });
    const result = await server.callTool(connection(), 'add_note', { text: 'x' });
    expect(result.structuredContent).toMatchObject({
      error: { code: 'rate_limited', details: { retry_after_seconds: 3 } },
    });
    expect(rows).toHaveLength(1);
    expect(services.flatMap((s) => s.calls)).toEqual([]);
  });

  it('refuses a guard without a kind when it is defined, pointing an old stage or gate guard to the migration', () => {
    const kindless = { name: 'kindless', check: () => ALLOW } as never;
    expect(() => defineGuard(kindless)).toThrow(ConfigurationError);
    expect(() => defineGuard(kindless)).toThrow(
      /kind must be one of admission, visibility, rate, call, claim, unit, outward, output\./,
    );
    const staged = { name: 'staged', stage: 'unit', check: () => undefined } as never;
    expect(() => defineGuard(staged)).toThrow(/guards now name their kind; see the migration/);
    const noCheck = { kind: 'unit', name: 'noCheck' } as never;
    expect(() => defineGuard(noCheck)).toThrow(/a unit guard needs check\(\)/);
  });

  it('answers internal_error when a guard returns no decision: undefined is not a yes', async () => {
    const silent = { kind: 'call', name: 'silent', check: () => undefined } as unknown as CallGuard;
    const reports: unknown[] = [];
    const { server, rows } = build({ guards: [silent], onError: (error) => reports.push(error) });
    const result = await server.callTool(connection(), 'add_note', { text: 'x' });
    expect(result.structuredContent).toMatchObject({ error: { code: 'internal_error' } });
    expect(rows).toHaveLength(1);
    expect(String(reports[0])).toMatch(/Guard silent returned no decision/);
  });

  it('renders a ToolError thrown by a service with its fix and next tool (I18)', async () => {
    const app = notesApp();
    const getNote = app.gh.defineTool({
      name: 'get_note',
      description: 'Returns one note.',
      effect: 'read',
      input: z.object({ id: z.string() }),
      presenter: listPresenter<{ id: string }>(['id']),
      run: ({ input }) => {
        throw new ToolError({
          code: 'not_found',
          message: `Note ${input.id} does not exist.`,
          fix: 'Search for the note first.',
          next: { tool: 'find_notes', arguments: { query: 'milk' } },
        });
      },
    });
    const server = app.gh.createServer(
      withGuards({ name: 'n', version: '1', tools: [getNote], authenticate: deny }),
    );
    const result = await server.callTool(connection(), 'get_note', { id: 'n9' });
    const lines = result.content[0].text.split('\n');
    expect(lines[0]).toBe('Error: Note n9 does not exist.');
    expect(lines).toContain('Next: call find_notes with {"query":"milk"}');
    expect(lastLineJson(result)).toEqual(result.structuredContent);
    expect(result.structuredContent).toMatchObject({
      error: { code: 'not_found', next: { tool: 'find_notes' } },
    });
  });

  it('hides an unexpected error behind a correlation id, logs no arguments and reports the error to the host', async () => {
    const app = notesApp();
    const leak = new Error('connect ECONNREFUSED postgres://admin:hunter2@db:5432/prod at /srv/app/db.js');
    const explode = app.gh.defineTool({
      name: 'explode',
      description: 'Fails.',
      effect: 'write',
      input: z.object({ text: z.string() }),
      presenter: listPresenter<{ id: string }>(['id']),
      run: () => {
        throw leak;
      },
    });
    const logger = recordingLogger();
    const onError = vi.fn();
    const server = app.gh.createServer(
      withGuards({
        name: 'n',
        version: '1',
        tools: [explode],
        authenticate: deny,
        ...writeStores(),
        logger,
        onError,
      }),
    );
    const result = await server.callTool(connection(), 'explode', { text: 'CANARY-ARGUMENT' });
    const text = JSON.stringify(result);
    for (const secret of ['hunter2', 'postgres://', '/srv/', 'ECONNREFUSED'])
      expect(text).not.toContain(secret);
    const correlationId = (result.structuredContent as { error: { details: JsonObject } }).error.details
      .correlation_id as string;
    expect(onError).toHaveBeenCalledWith(leak, { kind: 'fault', correlationId });
    expect(logger.lines).toEqual([
      expect.objectContaining({
        level: 'error',
        record: expect.objectContaining({
          tool: 'explode',
          outcome: 'internal_error',
          correlation_id: correlationId,
        }),
      }),
    ]);
    expect(JSON.stringify(logger.lines)).not.toMatch(/CANARY-ARGUMENT|hunter2/);
  });

  it('logs one line per call with tool, outcome, duration and ids, never arguments or results (I17)', async () => {
    const logger = recordingLogger();
    const { server } = build({ logger });
    await server.callTool(connection(), 'add_note', { text: 'CANARY-ARGUMENT' });
    await server.callTool(connection(), 'find_notes', { query: 'CANARY' });
    expect(logger.lines.map((l) => l.record)).toEqual([
      expect.objectContaining({
        tool: 'add_note',
        outcome: 'ok',
        connection_id: 'conn_1',
        tenant_id: 't1',
        duration_ms: expect.any(Number),
      }),
      expect.objectContaining({ tool: 'find_notes', outcome: 'ok' }),
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('CANARY');
  });
});

describe('createServer', () => {
  it('refuses the error hooks that became onError, on the server and on every transport', async () => {
    const app = notesApp();
    const old = {
      name: 'n',
      version: '1',
      tools: [app.findNotes],
      authenticate: deny,
      onInternalError: () => {},
    };
    expect(() => app.gh.createServer(withGuards(old as never))).toThrow(
      /onInternalError is now onError\(error, \{ kind, correlationId \}\)/,
    );
    const server = app.gh.createServer(
      withGuards({ name: 'n', version: '1', tools: [app.findNotes], authenticate: deny }),
    );
    const { createHttpHandler } = await import('../src/http.js');
    expect(() => createHttpHandler(server, { onerror: () => {} } as never)).toThrow(
      /createHttpHandler: onerror moved to the server: createServer\(\{ onError \}\)/,
    );
  });

  it('refuses duplicate tool names, outward tools without a confirm flow, and a missing authenticator', () => {
    const app = notesApp();
    const notify = app.gh.defineTool({
      name: 'notify_owner',
      description: 'Mails the owner.',
      effect: 'notify',
      input: z.object({}),
      presenter: listPresenter<{ id: string }>(['id']),
      prepare: () => ({ content: 'hi', summary: 'Mail the owner' }),
      run: () => ({ id: 'x' }),
    });
    const make = (tools: (typeof app.findNotes)[], authenticate = deny) =>
      app.gh.createServer(withGuards({ name: 'n', version: '1', tools, authenticate, ...writeStores() }));
    expect(() => make([app.findNotes, app.findNotes])).toThrow(/twice/);
    expect(() => make([notify])).toThrow(/the two-step confirm \(I9\); add confirmGuard/);
    expect(() => make([app.findNotes], null as never)).toThrow(/authenticate/);
  });
});

describe('the tool a guard sees', () => {
  it('is one frozen GuardedTool per tool, the same at build, in tools/list, on lookup and per call, without its run', async () => {
    const seen: { stage: string; tool: GuardedTool }[] = [];
    const watch = (stage: string, tool: GuardedTool) => {
      if (tool.name === 'add_note') seen.push({ stage, tool });
    };
    const visibility: VisibilityGuard = {
      kind: 'visibility',
      name: 'watchVisibility',
      tool: (tool, _connection, purpose) => {
        watch(`visibility:${purpose}`, tool);
        return ALLOW;
      },
      verify: (tool) => watch('verify', tool),
    };
    const call: CallGuard = {
      kind: 'call',
      name: 'watchCall',
      check: ({ tool }) => {
        watch('call', tool);
        return ALLOW;
      },
    };
    const unit: UnitGuard = {
      kind: 'unit',
      name: 'watchUnit',
      effects: ['write'],
      check: ({ tool }) => {
        watch('unit', tool);
        return ALLOW;
      },
    };
    const { server, rows, audit } = build({ guards: [visibility, call, unit] });

    await server.listTools(connection());
    const result = await server.callTool(connection(), 'add_note', { text: 'seen by guards' });

    expect(result.isError).toBeFalsy();
    expect(rows.map((r) => r.text)).toContain('seen by guards');
    expect(audit.rows.map((r) => [r.action, r.outcome])).toEqual([['add_note', 'ok']]);
    expect(seen.map((s) => s.stage)).toEqual([
      'verify',
      'visibility:list',
      'visibility:call',
      'call',
      'unit',
    ]);
    const [first] = seen;
    for (const { tool } of seen) expect(tool).toBe(first!.tool);
    const tool = first!.tool;
    expect(Object.isFrozen(tool)).toBe(true);
    expect(Object.keys(tool).sort()).toEqual([
      'creates',
      'effect',
      'guards',
      'inputSchema',
      'name',
      'requires',
      'title',
    ]);
    expect(tool).toMatchObject({
      name: 'add_note',
      effect: 'write',
      requires: ['notes.write'],
      creates: undefined,
    });
    expect(tool.guards).toEqual(expect.arrayContaining(['watchCall', 'watchUnit']));
    expect(tool.guards.indexOf('watchCall')).toBeLessThan(tool.guards.indexOf('watchUnit'));
    // The advertised schema, with the claim guard's argument: what tools/list shows.
    const listed = (await server.listTools(connection())).find((t) => t.name === 'add_note')!;
    expect(tool.inputSchema).toEqual(listed.inputSchema);
    expect(Object.keys(tool.inputSchema.properties as object)).toContain('idempotency_key');
  });
});
