import { duplicateGuard, replayGuard } from '@gatehousejs/guards';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testGuards, withGuards } from '../../../test/withGuards.js';
import {
  ALLOW,
  type CallResult,
  ConfigurationError,
  type Connection,
  createGatehouse,
  deny,
  type Guard,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  separateCommits,
} from '../src/index.js';
import {
  codeOf,
  connection,
  type PipelineDesk,
  pipelineDesk,
  structured,
  TTL_MS,
} from './fixtures/pipelineDesk.js';
import { listPresenter } from './fixtures.js';

const ADD = { text: 'milk' };
const ADD_ARGS = `{"text":"milk","tag":"plain"} {}`;

/** The events of a successful add_note, in the order core runs its stages. */
const addNoteRun = (unit: number, notes: number) => [
  'rate take write',
  `call guard: ${ADD_ARGS}`,
  'replay started',
  `unit begin ${unit}`,
  `unit guard sees ${notes} notes`,
  `run add_note in unit ${unit}`,
  `audit add_note in unit ${unit}`,
  `replay complete in unit ${unit}`,
  `unit commit ${unit}`,
];

describe('the call pipeline: stage order', () => {
  it('runs a write as rate token, arguments, call guards, replay claim, then one unit of work around unit guards, run, audit row and replay completion', async () => {
    const desk = pipelineDesk();
    const result = await desk.server.callTool(connection(), 'add_note', ADD);
    expect(structured(result)).toEqual({ status: 'ok', result: { id: 'n2', text: 'milk [plain] by p1' } });
    expect(desk.events).toEqual(addNoteRun(1, 1));
  });

  it('never runs a call guard on arguments that are invalid or unknown: nothing after the rate token happens', async () => {
    const desk = pipelineDesk();
    const empty = await desk.server.callTool(connection(), 'add_note', { text: '' });
    const unknown = await desk.server.callTool(connection(), 'add_note', { text: 'x', workspace_id: 'w2' });
    const badKey = await desk.server.callTool(connection(), 'add_note', { text: 'x', idempotency_key: 'no' });
    expect([codeOf(empty), codeOf(unknown), codeOf(badKey)]).toEqual([
      'invalid_arguments',
      'unknown_arguments',
      'invalid_arguments',
    ]);
    expect(desk.events).toEqual(['rate take write', 'rate take write', 'rate take write']);
    expect(desk.notes).toHaveLength(1);
  });

  it('gives call guards the validated input, defaults applied, and the guard-owned arguments', async () => {
    const desk = pipelineDesk();
    await desk.server.callTool(connection(), 'add_note', { text: 'milk', idempotency_key: 'key-00000001' });
    expect(desk.events[1]).toBe(
      `call guard: {"text":"milk","tag":"plain"} {"idempotency_key":"key-00000001"}`,
    );
  });

  it('runs call guards before the replay claim, also on a re-sent call, which is answered from the record and refunds its rate token', async () => {
    const desk = pipelineDesk();
    const first = await desk.server.callTool(connection(), 'add_note', ADD);
    desk.events.length = 0;
    const again = await desk.server.callTool(connection(), 'add_note', ADD, { requestId: 'resent' });
    expect(structured(again)).toMatchObject({ ...structured(first), replayed: true });
    expect(desk.events).toEqual([
      'rate take write',
      `call guard: ${ADD_ARGS}`,
      'replay completed',
      'rate refund write',
    ]);
    expect(desk.notes).toHaveLength(2);
  });

  it('hands the unit of work’s handle to the services of a write and of its unit guards, and none to a read', async () => {
    const desk = pipelineDesk();
    await desk.server.callTool(connection(), 'find_notes', { query: '' });
    await desk.server.callTool(connection(), 'add_note', ADD);
    expect(desk.servicesUnits).toEqual([undefined, { id: 1 }]);
  });
});

describe('the call pipeline: unit of work', () => {
  it('rolls back a unit guard’s refusal: the tool does not run, no audit row, and the replay claim is released', async () => {
    const desk = pipelineDesk();
    desk.toggles.addRefuses = true;
    const refused = await desk.server.callTool(connection(), 'add_note', ADD);
    expect(codeOf(refused)).toBe('conflict');
    expect(desk.events).toEqual([
      'rate take write',
      `call guard: ${ADD_ARGS}`,
      'replay started',
      'unit begin 1',
      'unit guard sees 1 notes',
      'unit rollback 1',
      'replay release',
    ]);
    expect(desk.notes).toHaveLength(1);
    expect(desk.audit.rows).toEqual([]);

    desk.toggles.addRefuses = false;
    desk.events.length = 0;
    const retried = await desk.server.callTool(connection(), 'add_note', ADD);
    expect(structured(retried).replayed).toBeUndefined();
    expect(desk.events).toEqual(addNoteRun(2, 1));
  });

  it('rolls back a write whose unit of work is unavailable, runs nothing and answers store_unavailable', async () => {
    const desk = pipelineDesk();
    desk.unitOfWork.outage = true;
    const refused = await desk.server.callTool(connection(), 'add_note', ADD);
    expect(codeOf(refused)).toBe('store_unavailable');
    expect(desk.events).toEqual([
      'rate take write',
      `call guard: ${ADD_ARGS}`,
      'replay started',
      'replay release',
    ]);
    expect(desk.notes).toHaveLength(1);
  });
});

/** A preview of notify_owner for n1 on `conn`: its token and summary. */
async function preview(desk: PipelineDesk, conn = connection()) {
  const result = await desk.server.callTool(conn, 'notify_owner', { note_id: 'n1' });
  const { status, confirm_token: token, confirm_summary: summary } = structured(result);
  expect(status).toBe('PREVIEW');
  return { token: token!, summary: summary! };
}

const confirm = (
  desk: PipelineDesk,
  p: { token: string; summary: string },
  conn = connection(),
  summary = p.summary,
): Promise<CallResult> =>
  desk.server.callTool(conn, 'confirm_action', { confirm_token: p.token, confirm_summary: summary });

const notifyRows = (desk: PipelineDesk) => desk.audit.rows.filter((r) => r.action === 'notify_owner');

interface Refusal {
  readonly outcome: string;
  readonly code: string;
  readonly between?: (desk: PipelineDesk) => void;
  readonly confirmAs?: (desk: PipelineDesk, p: { token: string; summary: string }) => Promise<CallResult>;
  readonly after?: (desk: PipelineDesk) => void;
}

/** The rows of the I9 table whose token dies. */
const KILLING: readonly Refusal[] = [
  {
    outcome: 'a wrong summary',
    code: 'confirm_summary_mismatch',
    confirmAs: (desk, p) => confirm(desk, p, connection(), `${p.summary} (edited)`),
  },
  { outcome: 'an expired token', code: 'confirm_expired', between: (desk) => desk.advance(TTL_MS + 1) },
  {
    outcome: 'another connection’s token',
    code: 'confirm_not_found',
    confirmAs: (desk, p) => confirm(desk, p, connection({ connectionId: 'c2' })),
  },
  {
    outcome: 'a lost right',
    code: 'missing_right',
    confirmAs: (desk, p) => confirm(desk, p, connection({ rights: new Set(['notes.read'] as const) })),
  },
  {
    outcome: 'a refusal by the tenant switch',
    code: 'tenant_disabled',
    between: (desk) => {
      desk.toggles.tenantOff = 't1';
    },
    after: (desk) => {
      desk.toggles.tenantOff = 'no';
    },
  },
  {
    outcome: 'a refusal by a unit guard',
    code: 'conflict',
    between: (desk) => {
      desk.toggles.unitGuardRefuses = true;
    },
    after: (desk) => {
      desk.toggles.unitGuardRefuses = false;
    },
  },
  {
    outcome: 'a ToolError from the service',
    code: 'conflict',
    between: (desk) => {
      desk.toggles.serviceRefuses = true;
    },
    after: (desk) => {
      desk.toggles.serviceRefuses = false;
    },
  },
];

describe('confirm_action refusals (I9)', () => {
  it.each(KILLING)(
    'kills the token after $outcome: any later use answers confirm_used and sends nothing',
    async (refusal) => {
      const desk = pipelineDesk();
      const p = await preview(desk);
      refusal.between?.(desk);
      const refused = await (refusal.confirmAs ?? ((d, q) => confirm(d, q)))(desk, p);
      expect(codeOf(refused)).toBe(refusal.code);
      refusal.after?.(desk);

      const later = await confirm(desk, p);
      expect(codeOf(later)).toBe('confirm_used');
      expect(desk.sent).toEqual([]);
      expect(notifyRows(desk)).toEqual([]);
    },
  );

  it('rolls back the unit of work of a confirmation a unit guard refuses', async () => {
    const desk = pipelineDesk();
    const p = await preview(desk);
    desk.toggles.unitGuardRefuses = true;
    desk.events.length = 0;
    await confirm(desk, p);
    expect(desk.events).toEqual([
      'rate take read',
      'replay started',
      'unit begin 1',
      'unit rollback 1',
      'replay release',
    ]);
  });

  it('kills the old token when the content changed and returns a renewed preview that confirms once', async () => {
    const desk = pipelineDesk();
    const p = await preview(desk);
    desk.notes[0]!.text = 'Boiler replaced';
    const changed = await confirm(desk, p);
    expect(codeOf(changed)).toBe('changed_since_preview');
    const renewed = structured(changed).error!.details.preview as {
      confirm_token: string;
      confirm_summary: string;
    };
    expect(renewed.confirm_token).not.toBe(p.token);

    expect(codeOf(await confirm(desk, p))).toBe('confirm_used');
    const executed = await confirm(desk, { token: renewed.confirm_token, summary: renewed.confirm_summary });
    expect(structured(executed)).toMatchObject({
      status: 'ok',
      result: { action: 'notify_owner', result: { sent: 1 } },
    });
    expect(desk.sent).toEqual(['Boiler replaced']);
    expect(notifyRows(desk)).toHaveLength(1);
  });

  it('answers an identical re-send of an executed confirmation from the replay record and any other use with confirm_used', async () => {
    const desk = pipelineDesk();
    const p = await preview(desk);
    const executed = await confirm(desk, p);
    expect(structured(executed).status).toBe('ok');
    expect(structured(await confirm(desk, p))).toMatchObject({ ...structured(executed), replayed: true });
    const other = await desk.server.callTool(connection(), 'confirm_action', {
      confirm_token: p.token,
      confirm_summary: p.summary,
      idempotency_key: 'another-key-1',
    });
    expect(codeOf(other)).toBe('confirm_used');
    expect(desk.sent).toEqual(['Boiler fixed']);
  });

  it('keeps the token through an unavailable unit of work (503): the retry confirms and sends once', async () => {
    const desk = pipelineDesk();
    const p = await preview(desk);
    desk.unitOfWork.outage = true;
    expect(codeOf(await confirm(desk, p))).toBe('store_unavailable');
    desk.unitOfWork.outage = false;
    expect(structured(await confirm(desk, p)).status).toBe('ok');
    expect(desk.sent).toEqual(['Boiler fixed']);
  });

  it('keeps the token when the pending-action store fails to claim it: the retry confirms and sends once', async () => {
    const desk = pipelineDesk();
    const p = await preview(desk);
    desk.pending.outage = true;
    const failed = await confirm(desk, p);
    expect(failed.isError).toBe(true);
    expect(codeOf(failed)).not.toBe('confirm_used');
    desk.pending.outage = false;
    expect(structured(await confirm(desk, p)).status).toBe('ok');
    expect(desk.sent).toEqual(['Boiler fixed']);
  });
});

describe('visibility: a connection-wide refusal', () => {
  const t2 = connection({ connectionId: 'c2', tenantId: 't2' });

  it('hides every tool from tools/list and refuses every call with the same code, before anything runs', async () => {
    const desk = pipelineDesk();
    const names = (await desk.server.listTools(t2)).map((t) => t.name);
    expect(names).toEqual([
      'find_notes',
      'add_note',
      'notify_owner',
      'confirm_action',
      'reject_action',
      'list_recent_changes',
    ]);
    const p = await preview(desk, t2);
    desk.toggles.tenantOff = 't2';
    desk.events.length = 0;

    expect(await desk.server.listTools(t2)).toEqual([]);
    const args: Record<string, object> = {
      find_notes: { query: '' },
      add_note: ADD,
      notify_owner: { note_id: 'n1' },
      reject_action: { confirm_token: p.token },
      list_recent_changes: {},
    };
    for (const name of Object.keys(args)) {
      expect(codeOf(await desk.server.callTool(t2, name, args[name])), name).toBe('tenant_disabled');
    }
    expect(desk.events).toEqual([]);
    expect(codeOf(await confirm(desk, p, t2))).toBe('tenant_disabled');
    expect(desk.sent).toEqual([]);
    expect((await desk.server.listTools(connection())).map((t) => t.name)).toEqual(names);
  });

  it('fails closed when the connection check throws: nothing is listed and every call is store_unavailable', async () => {
    const desk = pipelineDesk();
    desk.toggles.tenantOff = 'throws';
    expect(await desk.server.listTools(connection())).toEqual([]);
    expect(codeOf(await desk.server.callTool(connection(), 'add_note', ADD))).toBe('store_unavailable');
    expect(desk.notes).toHaveLength(1);
  });
});

describe('createServer: the pipeline’s requirements', () => {
  const gh = createGatehouse({ rights: ['notes.write'] as const, services: () => ({}) });
  const presenter = listPresenter<{ id: string }>(['id']);
  const write = gh.defineTool({
    name: 'add_thing',
    description: 'Adds a thing.',
    effect: 'write',
    input: z.object({}),
    presenter,
    run: () => ({ id: 't1' }),
  });
  const notify = gh.defineTool({
    name: 'notify_thing',
    description: 'Mails a thing.',
    effect: 'notify',
    input: z.object({}),
    presenter,
    prepare: () => ({ content: 'hi', summary: 'Mail a thing' }),
    run: () => ({ id: 't1' }),
  });
  const read = gh.defineTool({
    name: 'get_thing',
    description: 'Reads a thing.',
    effect: 'read',
    input: z.object({}),
    presenter,
    run: () => ({ id: 't1' }),
  });
  const base = {
    name: 'things',
    version: '1.0.0',
    authenticate: async () => ({ ok: false as const, status: 401 as const, reason: 'no' }),
    audit: new MemoryAuditStore(),
    confirm: { store: new MemoryPendingActionStore() },
  };
  const replay = { store: new MemoryReplayStore() };

  it('refuses to build a server with write or outward tools without replay or without a unit of work', () => {
    for (const tool of [write, notify]) {
      expect(() =>
        gh.createServer(withGuards({ ...base, tools: [tool], unitOfWork: separateCommits() })),
      ).toThrow(
        /no guard for a claim guard: every write is replay-protected \(I10\); add replayGuard\(\{ store \}\)/,
      );
      expect(() => gh.createServer(withGuards({ ...base, tools: [tool], replay }))).toThrow(
        /unit of work .*; pass createServer\(\{ unitOfWork \}\)/,
      );
    }
    expect(() =>
      gh.createServer(withGuards({ ...base, tools: [write], replay, unitOfWork: separateCommits() })),
    ).not.toThrow();
  });

  it('refuses a server whose guards lack a duty a tool needs, naming the factory to add', () => {
    const all = testGuards({ replay, confirm: { store: new MemoryPendingActionStore() } });
    const without = (drop: (g: Guard) => boolean) => all.filter((g) => !drop(g));
    const duty = (name: string) => (g: Guard) => (g as { duty?: string }).duty === name;
    const cases: [(g: Guard) => boolean, RegExp][] = [
      [duty('tenant'), /the tenant binding \(I3\); add tenantGuard\(\)/],
      [duty('rights'), /live rights \(I4\); add rightsGuard\(\)/],
      [duty('killSwitch'), /the global kill switch \(I6\); add killSwitchGuards\(\{ switches \}\)/],
      [duty('tenantSwitch'), /the per-tenant switch \(I6\); add killSwitchGuards\(\{ switches \}\)/],
      [(g) => g.kind === 'output', /output cleaning \(I16\); add untrustedTextGuard\(\)/],
      [(g) => g.kind === 'claim', /replay-protected \(I10\); add replayGuard\(\{ store \}\)/],
      [(g) => g.kind === 'outward', /the two-step confirm \(I9\); add confirmGuard\(\{ store \}\)/],
    ];
    const { confirm: _old, ...plain } = base;
    const units = { ...plain, unitOfWork: separateCommits() };
    for (const [drop, message] of cases) {
      expect(() =>
        gh.createServer({ ...units, tools: [read, write, notify], guards: without(drop) }),
      ).toThrow(message);
    }
    expect(() => gh.createServer({ ...units, tools: [read, write, notify], guards: all })).not.toThrow();
    // a read-only server needs no claim or outward guard, the rest it does
    expect(() =>
      gh.createServer({
        ...plain,
        tools: [read],
        guards: without((g) => g.kind === 'claim' || g.kind === 'outward'),
      }),
    ).not.toThrow();
    // two guards holding state of one kind are refused
    expect(() =>
      gh.createServer({
        ...units,
        tools: [read],
        guards: [...all, replayGuard({ store: new MemoryReplayStore() })],
      }),
    ).toThrow(/one claim guard per server; got replay and replay|two guards are named replay/);
  });

  it('refuses the options that became guards, naming the factory that replaces each', () => {
    for (const [option, factory] of [
      ['replay', /replayGuard/],
      ['confirm', /confirmGuard/],
      ['rate', /rateGuard/],
      ['gate', /admission guard/],
      ['visibility', /visibility guards/],
    ] as const) {
      const { confirm: _old, ...plain } = base;
      const old = { ...plain, tools: [read], guards: testGuards(), [option]: {} } as never;
      expect(() => gh.createServer(old)).toThrow(factory);
    }
  });

  it('builds a read-only server without replay or a unit of work', () => {
    expect(() => gh.createServer(withGuards({ ...base, tools: [read] }))).not.toThrow();
  });

  it('takes a tool’s guards as a function of the typed builders: called once, its guards run in their stage', async () => {
    let built = 0;
    const guarded = gh.defineTool({
      name: 'get_named',
      description: 'Reads a thing by name.',
      effect: 'read',
      input: z.object({ name: z.string() }),
      presenter,
      guards: (g) => {
        built++;
        return [
          g.define({
            kind: 'call',
            name: 'noSecrets',
            check: ({ input }) =>
              input.name.startsWith('secret')
                ? deny({ code: 'invalid_arguments', message: 'Not that one.', fix: 'Ask for another name.' })
                : ALLOW,
          }),
        ];
      },
      run: ({ input }) => ({ id: input.name }),
    });
    expect(built).toBe(1);
    expect(guarded.guards.map((guard) => guard.name)).toEqual(['noSecrets']);
    const server = gh.createServer(withGuards({ ...base, tools: [guarded] }));
    const reader: Connection<'notes.write'> = {
      connectionId: 'c1',
      tenantId: 't1',
      creatorId: 'p1',
      clientName: 'test',
      channel: 'mcp',
      rights: new Set(),
    };
    const refused = await server.callTool(reader, 'get_named', { name: 'secret plans' });
    expect(codeOf(refused)).toBe('invalid_arguments');
    expect(structured(await server.callTool(reader, 'get_named', { name: 'lamp' }))).toEqual({
      status: 'ok',
      result: { id: 'lamp' },
    });
    expect(() =>
      gh.defineTool({
        name: 'get_other',
        description: 'Reads a thing.',
        effect: 'read',
        input: z.object({}),
        presenter,
        guards: (() => 'not a list') as never,
        run: () => ({ id: 't1' }),
      }),
    ).toThrow(/guards must be a list of guards, or a function returning one/);
  });

  it('refuses a unit of work without atomic, a unit guard on a read tool, and a create_… tool without creates', () => {
    const noAtomic = { run: separateCommits().run } as never;
    expect(() =>
      gh.createServer(withGuards({ ...base, tools: [write], replay, unitOfWork: noAtomic })),
    ).toThrow(ConfigurationError);
    const guarded = gh.defineTool({
      ...{ name: 'get_guarded', description: 'Reads a thing.', input: z.object({}), presenter },
      effect: 'read',
      guards: [{ kind: 'unit', name: 'locked', check: () => ALLOW }],
      run: () => ({ id: 't1' }),
    });
    expect(() => gh.createServer(withGuards({ ...base, tools: [guarded] }))).toThrow(
      /guard locked runs in the unit of work/,
    );
    const create = gh.defineTool({
      name: 'create_thing',
      description: 'Creates a thing.',
      effect: 'write',
      input: z.object({}),
      presenter,
      run: () => ({ id: 't1' }),
    });
    expect(() =>
      gh.createServer(withGuards({ ...base, tools: [create], replay, unitOfWork: separateCommits() })),
    ).toThrow(/create_thing: a create tool carries a duplicate guard/);
  });

  it('checks the naming conventions the server is given: its own create-tool pattern, its own notify-like words, or none', () => {
    const units = { ...base, replay, unitOfWork: separateCommits() };
    const thing = (name: string, input = z.object({})) =>
      gh.defineTool({
        name,
        description: 'Changes a thing.',
        effect: 'write',
        input,
        presenter,
        run: () => ({ id: 't1' }),
      });
    // a product that names its create tools anlegen_…: those need creates, create_… ones no longer do
    const german = { createTool: /^anlegen_/ };
    expect(() =>
      gh.createServer(withGuards({ ...units, tools: [thing('anlegen_termin')], conventions: german })),
    ).toThrow(/anlegen_termin: a create tool carries a duplicate guard/);
    expect(() =>
      gh.createServer(withGuards({ ...units, tools: [thing('create_thing')], conventions: german })),
    ).not.toThrow();
    expect(() =>
      gh.createServer(
        withGuards({ ...units, tools: [thing('create_thing')], conventions: { createTool: false } }),
      ),
    ).not.toThrow();
    // the sibling update tool of a create tool: silent by the server's own words
    const create = (update: string) =>
      gh.defineTool({
        name: 'create_termin',
        description: 'Creates a thing.',
        effect: 'write',
        input: z.object({ day: z.string() }),
        presenter,
        guards: () => [
          duplicateGuard<{ day: string }, object>({
            key: (input) => input,
            find: () => undefined,
            updateTool: update,
          }),
        ],
        run: () => ({ id: 't1' }),
      });
    const withNotice = thing('update_termin', z.object({ id: z.string(), benachrichtigen: z.boolean() }));
    const words = { notifyLikeParameter: /^benachrichtigen$/ };
    expect(() =>
      gh.createServer(
        withGuards({ ...units, tools: [create('update_termin'), withNotice], conventions: words }),
      ),
    ).toThrow(/update tools are silent and may not take "benachrichtigen"/);
    expect(() =>
      gh.createServer(withGuards({ ...units, tools: [create('update_termin'), withNotice] })),
    ).not.toThrow();
    const withMail = thing('update_termin', z.object({ id: z.string(), send_email: z.boolean() }));
    expect(() =>
      gh.createServer(withGuards({ ...units, tools: [create('update_termin'), withMail] })),
    ).toThrow(/may not take "send_email"/);
    expect(() =>
      gh.createServer(
        withGuards({
          ...units,
          tools: [create('update_termin'), withMail],
          conventions: { notifyLikeParameter: false },
        }),
      ),
    ).not.toThrow();
    expect(() =>
      gh.createServer(
        withGuards({
          ...units,
          tools: [thing('x_thing')],
          conventions: { createTool: 'create_' as never },
        }),
      ),
    ).toThrow(/conventions.createTool must be a RegExp or false/);
  });
});
