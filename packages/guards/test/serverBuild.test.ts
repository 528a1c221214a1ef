import {
  ALLOW,
  type Authenticate,
  ConfigurationError,
  createGatehouse,
  defineGuard,
  type Guard,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type ServerOptions,
  separateCommits,
  type ToolDefinition,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  batchCountGuard,
  confirmGuard,
  killSwitchGuards,
  replayGuard,
  rightsGuard,
  type SwitchReader,
  tenantGuard,
  toolGuards,
  untrustedTextGuard,
  versionGuard,
} from '../src/index.js';

type Right = 'notes.write';
const authenticate: Authenticate<Right> = async () => ({ ok: false, status: 401, reason: 'unused' });
const gh = createGatehouse({
  rights: ['notes.write'] as const,
  services: () => ({ notes: [] as string[] }),
  toolGuards,
});
type Services = { notes: string[] };
const presenter = { outputSchema: { type: 'object' }, present: () => ({}) };

const writeTool = gh.defineTool({
  name: 'set_status',
  description: 'Sets the status of a note.',
  effect: 'write',
  input: z.object({ id: z.string(), status: z.string() }),
  presenter,
  run: () => ({}),
});
const notifyTool = gh.defineTool({
  name: 'mail_owner',
  description: 'Mails the owner of a note.',
  effect: 'notify',
  input: z.object({ id: z.string() }),
  presenter,
  prepare: ({ input }) => ({ content: { id: input.id }, summary: `mail the owner of ${input.id}` }),
  run: () => ({}),
});
const readTool = gh.defineTool({
  name: 'find_notes',
  description: 'Lists the notes.',
  effect: 'read',
  input: z.object({}),
  presenter,
  run: () => ({}),
});

const SWITCHES_OFF: SwitchReader = { isGlobalOn: async () => false, tenantAccess: async () => true };

/** The guards every server needs, by the duty each fulfils, built with the real factories. */
function dutyGuards() {
  const [killSwitch, tenantSwitch] = killSwitchGuards({ switches: SWITCHES_OFF });
  return {
    tenant: tenantGuard(),
    rights: rightsGuard(),
    killSwitch,
    tenantSwitch,
    output: untrustedTextGuard(),
  } satisfies Record<string, Guard>;
}
const everyGuard = (): Guard[] => [
  ...Object.values(dutyGuards()),
  replayGuard({ store: new MemoryReplayStore() }),
  confirmGuard({ store: new MemoryPendingActionStore() }),
];

const complete: Omit<ServerOptions<Right, Services>, 'tools'> = {
  name: 'notes',
  version: '1',
  authenticate,
  audit: new MemoryAuditStore(),
  unitOfWork: separateCommits(),
  guards: everyGuard(),
};

/** The error building a server throws; fails the test when it builds. */
function buildError(
  tools: ToolDefinition<Right, Services>[],
  options: Partial<ServerOptions<Right, Services>>,
) {
  try {
    gh.createServer({ ...complete, tools, ...options });
  } catch (error) {
    expect(ConfigurationError.is(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the server was built');
}

const without = (kind: Guard['kind']) => everyGuard().filter((g) => g.kind !== kind);

// Before a5d4439 replay protection was an optional guard (replayGuard) and the
// transaction a guard of the stores package (transactionGuard): a server with
// write or outward tools built without either, and its writes ran without
// replay protection and outside any unit of work. Then core owned the stages
// (createServer({ replay, confirm })); now every stage is a guard of its kind,
// and the build refuses a server whose guards lack one its tools need.
describe('createServer with write and outward tools', () => {
  it('does not build without a claim guard, naming the tool and replayGuard', () => {
    for (const tool of [writeTool, notifyTool]) {
      expect(buildError([tool], { guards: without('claim') })).toMatch(
        new RegExp(
          `^Tool ${tool.name}: the server has no guard for a claim guard: every write is replay-protected \\(I10\\); add replayGuard\\(\\{ store \\}\\)`,
        ),
      );
    }
  });

  it('does not build an outward tool without an outward guard, naming confirmGuard', () => {
    expect(buildError([notifyTool], { guards: without('outward') })).toMatch(
      /^Tool mail_owner: the server has no guard for an outward guard: the two-step confirm \(I9\); add confirmGuard\(\{ store \}\)/,
    );
    expect(() =>
      gh.createServer({ ...complete, tools: [writeTool], guards: without('outward') }),
    ).not.toThrow();
  });

  it('refuses the options that became guards, naming the factory that replaces each', () => {
    const store = new MemoryReplayStore();
    expect(buildError([writeTool], { replay: { store } } as never)).toMatch(
      /^createServer: replay is now a guard: pass replayGuard\(\{ store \}\) from @gatehousejs\/guards/,
    );
    expect(buildError([notifyTool], { confirm: { store: new MemoryPendingActionStore() } } as never)).toMatch(
      /^createServer: confirm is now a guard: pass confirmGuard\(\{ store \}\)/,
    );
  });

  it('does not build without unitOfWork, naming the option and the tool', () => {
    for (const tool of [writeTool, notifyTool]) {
      expect(buildError([tool], { unitOfWork: undefined })).toMatch(
        new RegExp(`^Tool ${tool.name}: .*unit of work.*pass createServer\\(\\{ unitOfWork \\}\\)`),
      );
    }
    expect(
      buildError([writeTool], { unitOfWork: { run: (work: () => unknown) => work() } as never }),
    ).toMatch(/unitOfWork needs run\(work\) and atomic/);
  });

  it('builds a read-only server without a claim guard, an outward guard or unitOfWork', () => {
    expect(() =>
      gh.createServer({
        name: 'notes',
        version: '1',
        authenticate,
        tools: [readTool],
        guards: Object.values(dutyGuards()),
      }),
    ).not.toThrow();
  });
});

describe('createServer with any tool', () => {
  it('does not build without the tenant, rights, kill-switch and output guards, naming the factory of each', () => {
    const factories = {
      tenant: /the tenant binding \(I3\); add tenantGuard\(\)/,
      rights: /live rights \(I4\); add rightsGuard\(\)/,
      killSwitch: /the global kill switch \(I6\); add killSwitchGuards\(\{ switches \}\)/,
      tenantSwitch: /the per-tenant switch \(I6\); add killSwitchGuards\(\{ switches \}\)/,
      output: /output cleaning \(I16\); add untrustedTextGuard\(\)/,
    } as const;
    for (const [duty, message] of Object.entries(factories)) {
      const guards = Object.entries(dutyGuards())
        .filter(([name]) => name !== duty)
        .map(([, guard]) => guard);
      const error = buildError([readTool], { guards });
      expect(error, duty).toMatch(/^Tool find_notes: the server has no guard for /);
      expect(error, duty).toMatch(message);
      expect(error, duty).toMatch(/or use standardGuards\(stores, \{ switches \}\)/);
    }
  });

  it('refuses a second guard of a kind that holds state, and two guards of one name', () => {
    expect(
      buildError([writeTool], {
        guards: [...everyGuard(), { ...replayGuard({ store: new MemoryReplayStore() }), name: 'replay2' }],
      }),
    ).toMatch(/^createServer: one claim guard per server; got replay and replay2/);
    expect(buildError([readTool], { guards: [...everyGuard(), rightsGuard()] })).toMatch(
      /^createServer: two guards are named rights/,
    );
  });
});

describe('build-time checks of create tools and the guards', () => {
  it('refuses a create tool without a duplicate guard, and one without a silent sibling update tool (I11)', () => {
    const create = (updateTool?: string) =>
      gh.defineTool({
        name: 'create_note',
        description: 'Creates a note.',
        effect: 'write',
        input: z.object({ text: z.string() }),
        presenter,
        guards: (g) =>
          updateTool
            ? [g.duplicate({ updateTool, key: (input) => ({ text: input.text }), find: () => undefined })]
            : [],
        run: () => ({}),
      });
    expect(buildError([create()], {})).toMatch(/^Tool create_note: a create tool carries a duplicate guard/);
    expect(buildError([create('update_note')], {})).toMatch(/update_note is not registered/);
    expect(buildError([create('mail_owner'), notifyTool], {})).toMatch(/must be a silent write tool/);
    expect(() => gh.createServer({ ...complete, tools: [create('set_status'), writeTool] })).not.toThrow();
  });

  it('refuses a version guard without current or on a tool without a required version (I12)', () => {
    expect(() => versionGuard({ current: undefined as never })).toThrow(/current is required/);
    const guarded = gh.defineTool({
      name: 'update_note',
      description: 'Updates a note.',
      effect: 'write',
      input: z.object({ id: z.string(), version: z.string().optional() }),
      presenter,
      guards: (g) => [g.version({ current: () => undefined })],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(/update_note: an update tool must require "version"/);
  });

  it('refuses bad batch sizes and a batch tool without ids or filter with expected_count (I13)', () => {
    expect(() => batchCountGuard({ match: () => ({ total: 0, sample: [] }), maxSize: 0 })).toThrow(
      /^batchCountGuard: maxSize and maxListed must be positive integers/,
    );
    const guarded = gh.defineTool({
      name: 'archive_notes',
      description: 'Archives notes.',
      effect: 'write',
      input: z.object({ filter: z.object({ text: z.string() }) }),
      presenter,
      guards: (g) => [g.batchCount({ match: () => ({ total: 0, sample: [] }) })],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(/archive_notes: a batch tool takes ids, or filter/);
  });

  it('refuses a unit guard on a read tool: a read opens no unit of work', () => {
    const unit = defineGuard({ kind: 'unit', name: 'peek', check: () => ALLOW });
    const guarded = gh.defineTool({
      name: 'get_note',
      description: 'Returns a note.',
      effect: 'read',
      input: z.object({ id: z.string() }),
      presenter,
      guards: [unit],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(
      /^Tool get_note: guard peek runs in the unit of work, which a read tool does not open for it; use a call guard/,
    );
    const serverWide = defineGuard({ ...unit, effects: ['read'] });
    expect(buildError([readTool], { guards: [...everyGuard(), serverWide] })).toMatch(
      /^Tool find_notes: guard peek runs in the unit of work, which a read tool does not open for it/,
    );
  });

  it('refuses a server-wide guard in a tool’s own guards, naming where it goes', () => {
    expect(() =>
      gh.defineTool({
        name: 'touch_note',
        description: 'Touches a note.',
        effect: 'write',
        input: z.object({ id: z.string() }),
        presenter,
        guards: [replayGuard({ store: new MemoryReplayStore() }) as never],
        run: () => ({}),
      }),
    ).toThrow(/^Tool touch_note: guard replay is a claim guard; a tool carries call and unit guards/);
  });
});
