import {
  type Authenticate,
  ConfigurationError,
  createGatehouse,
  defineGuard,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type ServerOptions,
  separateCommits,
  type ToolDefinition,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { batchGuard, versionGuard } from '../src/index.js';

type Right = 'notes.write';
const authenticate: Authenticate<Right> = async () => ({ ok: false, status: 401, reason: 'unused' });
const gh = createGatehouse({ rights: ['notes.write'] as const, services: () => ({ notes: [] as string[] }) });
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

const complete: Omit<ServerOptions<Right, Services>, 'tools'> = {
  name: 'notes',
  version: '1',
  authenticate,
  audit: new MemoryAuditStore(),
  confirm: { store: new MemoryPendingActionStore() },
  replay: { store: new MemoryReplayStore() },
  unitOfWork: separateCommits(),
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

// Before a5d4439 replay protection was an optional guard (replayGuard) and the
// transaction a guard of the stores package (transactionGuard): a server with
// write or outward tools built without either, and its writes ran without
// replay protection and outside any unit of work.
describe('createServer with write and outward tools', () => {
  it('does not build without replay, naming the option and the tool', () => {
    for (const tool of [writeTool, notifyTool]) {
      expect(buildError([tool], { replay: undefined })).toMatch(
        new RegExp(`^Tool ${tool.name}: .*replay-protected.*pass createServer\\(\\{ replay \\}\\)`),
      );
    }
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

  it('builds a read-only server without replay or unitOfWork', () => {
    expect(() =>
      gh.createServer({ name: 'notes', version: '1', authenticate, tools: [readTool] }),
    ).not.toThrow();
  });
});

describe('build-time checks of creates and the guards', () => {
  it('refuses a create tool without creates, and creates without a silent sibling update tool (I11)', () => {
    const create = (updateTool?: string) =>
      gh.defineTool({
        name: 'create_note',
        description: 'Creates a note.',
        effect: 'write',
        input: z.object({ text: z.string() }),
        presenter,
        ...(updateTool
          ? {
              creates: {
                updateTool,
                key: (input: { text: string }) => ({ text: input.text }),
                find: () => undefined,
              },
            }
          : {}),
        run: () => ({}),
      });
    expect(buildError([create()], {})).toMatch(/create_note: a create tool declares creates/);
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
      guards: [versionGuard<{ id: string }, Services>({ current: () => undefined })],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(/update_note: an update tool must require "version"/);
  });

  it('refuses bad batch sizes and a batch tool without ids or filter with expected_count (I13)', () => {
    expect(() => batchGuard({ match: () => ({ total: 0, sample: [] }), maxSize: 0 })).toThrow(
      /maxSize and maxListed must be positive integers/,
    );
    const guarded = gh.defineTool({
      name: 'archive_notes',
      description: 'Archives notes.',
      effect: 'write',
      input: z.object({ filter: z.object({ text: z.string() }) }),
      presenter,
      guards: [batchGuard({ match: () => ({ total: 0, sample: [] }) })],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(/archive_notes: a batch tool takes ids, or filter/);
  });

  it('refuses a unit guard on a read tool: a read opens no unit of work', () => {
    const unit = defineGuard({ name: 'peek', stage: 'unit', check: () => undefined });
    const guarded = gh.defineTool({
      name: 'get_note',
      description: 'Returns a note.',
      effect: 'read',
      input: z.object({ id: z.string() }),
      presenter,
      guards: [unit],
      run: () => ({}),
    });
    expect(buildError([guarded], {})).toMatch(/guard peek runs in the unit of work/);
    expect(buildError([readTool], { guards: [defineGuard({ ...unit, effects: ['read'] })] })).toMatch(
      /a unit guard cannot apply to read tools/,
    );
  });
});
