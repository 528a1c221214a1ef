// What a write answers when its database fails underneath it (I9, I10): a
// conflict the database rolled back runs again (a bounded number of times,
// never after a port acted), a commit whose fate is unknown answers
// `outcome_unknown` and its retry finds the result or runs once, and every
// outage answer tells the model when to send the call again.

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  ALLOW,
  type CallResult,
  createGatehouse,
  type JsonObject,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type ReplayStore,
  ToolError,
  TransactionConflict,
  type UnitOfWork,
} from '../src/index.js';
import { connectionWith, listPresenter } from './fixtures.js';

type Note = { id: string; text: string };

/** What the unit of work does to the next units: commit, or lose the connection around the COMMIT. */
type Ending = 'commit' | 'lost-after-commit' | 'lost-before-commit';

const lostCommit = () =>
  new ToolError({
    code: 'outcome_unknown',
    message: 'The database connection was lost while the change committed.',
    fix: 'Send the same call again.',
  });

/** A unit of work over an array of rows: a rollback restores them; `endings` scripts the next units. */
class ScriptedUnitOfWork implements UnitOfWork<Note[]> {
  readonly atomic = true;
  readonly endings: Ending[] = [];
  runs = 0;

  constructor(readonly rows: Note[]) {}

  async run<T>(work: (handle: Note[]) => Promise<T>): Promise<T> {
    this.runs++;
    const ending = this.endings.shift() ?? 'commit';
    if (ending === 'lost-before-commit') throw lostCommit();
    const before = this.rows.map((row) => ({ ...row }));
    try {
      const result = await work(this.rows);
      if (ending === 'lost-after-commit') throw lostCommit();
      return result;
    } catch (error) {
      if (ending !== 'lost-after-commit') this.rows.splice(0, this.rows.length, ...before);
      throw error;
    }
  }
}

function desk(options: { replayStore?: (store: ReplayStore) => ReplayStore } = {}) {
  /** Switch reads counted from the last reset; those numbered in `failing` throw (a database that cannot be read). */
  const switchReads = { count: 0, failing: new Set<number>() };
  const rows: Note[] = [];
  const sent: string[] = [];
  const unitOfWork = new ScriptedUnitOfWork(rows);
  const audit = new MemoryAuditStore();
  const pending = new MemoryPendingActionStore();
  /** How many of the next service writes lose to a concurrent transaction. */
  const conflicts = { add: 0, send: 0 };
  const gh = createGatehouse({
    rights: ['notes.write'] as const,
    ports: { mailer: { effect: 'notify', port: { send: (text: string) => sent.push(text) } } },
    services: (_connection, ports) => ({
      add(text: string): Note {
        if (conflicts.add > 0) {
          conflicts.add--;
          throw new TransactionConflict({ cause: new Error('deadlock detected') });
        }
        const note = { id: `n${rows.length + 1}`, text };
        rows.push(note);
        return note;
      },
      mail(text: string) {
        ports.mailer.send(text);
        if (conflicts.send > 0) {
          conflicts.send--;
          throw new TransactionConflict();
        }
        return { sent: 1 };
      },
    }),
  });
  const addNote = gh.defineTool({
    name: 'add_note',
    description: 'Adds a note.',
    effect: 'write',
    requires: ['notes.write'],
    input: z.object({ text: z.string() }),
    presenter: listPresenter<Note>(['id', 'text']),
    guards: (g) => [
      g.define({
        kind: 'unit',
        name: 'noting guard',
        check: ({ note }) => {
          note('checked');
          return ALLOW;
        },
      }),
    ],
    run: ({ input, services }) => services.add(input.text),
  });
  const mailOwner = gh.defineTool({
    name: 'mail_owner',
    description: 'Mails the owner.',
    effect: 'notify',
    requires: ['notes.write'],
    input: z.object({ text: z.string() }),
    presenter: listPresenter<{ sent: number }>(['sent']),
    prepare: ({ input }) => ({ content: { text: input.text }, summary: `Mail “${input.text}”` }),
    run: ({ input, services }) => services.mail(input.text),
  });
  const memory = new MemoryReplayStore();
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools: [addNote, mailOwner],
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit,
      replay: { store: options.replayStore ? options.replayStore(memory) : memory },
      confirm: { store: pending },
      unitOfWork,
      guards: [
        {
          kind: 'visibility',
          name: 'workspace switch',
          duty: 'tenantSwitch',
          connection: async () => {
            switchReads.count++;
            if (switchReads.failing.has(switchReads.count)) throw new Error('connection terminated');
            return ALLOW;
          },
        },
      ],
    }),
  );
  const connection = connectionWith(['notes.write'] as const);
  const call = (tool: string, args: JsonObject) => server.callTool(connection, tool, args);
  return {
    rows,
    sent,
    audit,
    pending,
    unitOfWork,
    conflicts,
    /** Makes the switch reads numbered `failing` (from now, 1-based) throw. */
    failSwitchReads(...failing: number[]) {
      switchReads.count = 0;
      switchReads.failing = new Set(failing);
    },
    call,
    okAudits: async () =>
      (await audit.list({ tenantId: 't1', limit: 100 })).filter((row) => row.outcome === 'ok'),
    /** Previews mail_owner and returns the confirm_action arguments. */
    async preview(text: string): Promise<JsonObject> {
      const previewed = structured(await call('mail_owner', { text }));
      return previewed.next?.arguments as JsonObject;
    },
  };
}

const structured = (result: CallResult) =>
  result.structuredContent as {
    status?: string;
    result?: JsonObject;
    replayed?: boolean;
    next?: { arguments?: JsonObject };
    error?: { code: string; message: string; details: JsonObject };
  };

describe('a unit of work the database rolled back for a conflict', () => {
  it('runs again and commits once, with one audit row and the notes of one run', async () => {
    const d = desk();
    d.conflicts.add = 2;
    const answer = structured(await d.call('add_note', { text: 'boiler' }));
    expect(answer).toMatchObject({ status: 'ok', result: { id: 'n1', text: 'boiler' } });
    expect(d.unitOfWork.runs).toBe(3);
    expect(d.rows).toEqual([{ id: 'n1', text: 'boiler' }]);
    const audits = await d.okAudits();
    expect(audits.map((row) => row.note)).toEqual(['checked']);
    const replayed = structured(await d.call('add_note', { text: 'boiler' }));
    expect(replayed).toMatchObject({ replayed: true, result: { id: 'n1' } });
  });

  it('answers store_unavailable with a retry hint after three conflicts, writes nothing, and frees the call', async () => {
    const d = desk();
    d.conflicts.add = 3;
    const answer = structured(await d.call('add_note', { text: 'boiler' }));
    expect(answer.error).toMatchObject({
      code: 'store_unavailable',
      details: { retry_after_seconds: 2 },
    });
    expect(d.unitOfWork.runs).toBe(3);
    expect(d.rows).toEqual([]);
    expect(await d.okAudits()).toEqual([]);
    const retried = structured(await d.call('add_note', { text: 'boiler' }));
    expect(retried).toMatchObject({ status: 'ok', result: { id: 'n1' } });
    expect(retried.replayed).toBeUndefined();
  });

  it('is not run again once an outward port was reached: the port may have acted outside the transaction', async () => {
    const d = desk();
    const confirm = await d.preview('hello');
    d.conflicts.send = 1;
    const answer = structured(await d.call('confirm_action', confirm));
    expect(answer.error?.code).toBe('store_unavailable');
    expect(d.unitOfWork.runs).toBe(1);
    expect(d.sent).toEqual(['hello']);
    // the outage keeps the token (I9): the claim was given back
    const [action] = await Promise.all([d.pending.findByTokenHash(await tokenHashOf(confirm))]);
    expect(action?.status).toBe('pending');
  });

  it('is not run again when the call’s replay claim is no longer its own', async () => {
    const d = desk({
      replayStore: (store) => ({
        begin: (...args) => store.begin(...args),
        complete: (...args) => store.complete(...args),
        release: (...args) => store.release(...args),
        renew: (...args) => store.renew(...args),
        holds: async () => false,
      }),
    });
    d.conflicts.add = 1;
    const answer = structured(await d.call('add_note', { text: 'boiler' }));
    expect(answer.error).toMatchObject({
      code: 'store_unavailable',
      message: expect.stringContaining('took over'),
    });
    expect(d.unitOfWork.runs).toBe(1);
    expect(d.rows).toEqual([]);
  });
});

describe('a commit whose outcome is unknown', () => {
  it('answers outcome_unknown with a retry hint; the retry returns the result when the commit landed', async () => {
    const d = desk();
    d.unitOfWork.endings.push('lost-after-commit');
    const answer = structured(await d.call('add_note', { text: 'boiler' }));
    expect(answer.error).toMatchObject({ code: 'outcome_unknown', details: { retry_after_seconds: 2 } });
    expect(d.rows).toHaveLength(1);
    const retried = structured(await d.call('add_note', { text: 'boiler' }));
    expect(retried).toMatchObject({ replayed: true, result: { id: 'n1' } });
    expect(d.rows).toHaveLength(1);
    expect(await d.okAudits()).toHaveLength(1);
  });

  it('runs once on the retry when the commit did not land', async () => {
    const d = desk();
    d.unitOfWork.endings.push('lost-before-commit');
    expect(structured(await d.call('add_note', { text: 'boiler' })).error?.code).toBe('outcome_unknown');
    expect(d.rows).toEqual([]);
    const retried = structured(await d.call('add_note', { text: 'boiler' }));
    expect(retried).toMatchObject({ status: 'ok', result: { id: 'n1' } });
    expect(retried.replayed).toBeUndefined();
    expect(d.rows).toHaveLength(1);
  });

  it('keeps a confirm token whose commit may not have landed, and its retry sends once', async () => {
    const d = desk();
    const confirm = await d.preview('hello');
    d.unitOfWork.endings.push('lost-before-commit');
    expect(structured(await d.call('confirm_action', confirm)).error?.code).toBe('outcome_unknown');
    expect(d.sent).toEqual([]);
    expect((await d.pending.findByTokenHash(await tokenHashOf(confirm)))?.status).toBe('pending');
    const retried = structured(await d.call('confirm_action', confirm));
    expect(retried).toMatchObject({ status: 'ok', result: { action: 'mail_owner' } });
    expect(d.sent).toEqual(['hello']);
    const again = structured(await d.call('confirm_action', confirm));
    expect(again).toMatchObject({ replayed: true });
    expect(d.sent).toEqual(['hello']);
  });
});

describe('a confirmation whose switch cannot be read', () => {
  it('answers store_unavailable and keeps the token, whether the read fails before or after the claim; the retry sends once', async () => {
    const d = desk();
    const confirm = await d.preview('hello');
    const hash = await tokenHashOf(confirm);
    // the first read (confirm_action's visibility) fails: nothing was decided, nothing is killed
    d.failSwitchReads(1);
    expect(structured(await d.call('confirm_action', confirm)).error?.code).toBe('store_unavailable');
    expect((await d.pending.findByTokenHash(hash))?.status).toBe('pending');
    // visibility passes, the standing check after the claim fails: the claim is released, the token kept
    d.failSwitchReads(2);
    expect(structured(await d.call('confirm_action', confirm)).error?.code).toBe('store_unavailable');
    expect((await d.pending.findByTokenHash(hash))?.status).toBe('pending');
    expect(d.sent).toEqual([]);
    d.failSwitchReads();
    const retried = structured(await d.call('confirm_action', confirm));
    expect(retried).toMatchObject({ status: 'ok', result: { action: 'mail_owner' } });
    expect(d.sent).toEqual(['hello']);
  });
});

describe('a write that meets a database outage', () => {
  it('answers store_unavailable with retry_after_seconds, and names no cause', async () => {
    const d = desk();
    d.unitOfWork.run = async () => {
      throw new ToolError(
        { code: 'store_unavailable', message: 'The database could not be reached.', fix: 'Retry shortly.' },
        { cause: new Error('connect ECONNREFUSED 10.0.0.7:5432') },
      );
    };
    const answer = await d.call('add_note', { text: 'boiler' });
    expect(structured(answer).error).toMatchObject({
      code: 'store_unavailable',
      details: { retry_after_seconds: 2 },
    });
    expect(JSON.stringify(answer)).not.toContain('10.0.0.7');
  });
});

async function tokenHashOf(confirm: JsonObject): Promise<string> {
  const { sha256Hex } = await import('../src/index.js');
  return sha256Hex(String(confirm.confirm_token));
}
