// The claims core holds while a call runs (I9, I10): a replay claim and a
// confirmation's claim on its pending action. Each lasts a short lease that
// its holder renews while it runs, so a slow call keeps its claim and a
// crashed one's lapses within the lease: the next call takes it over instead
// of answering `still_running` or `confirm_locked` until the action expires.

import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  type CallResult,
  ConfigurationError,
  createGatehouse,
  type JsonObject,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  separateCommits,
  sha256Hex,
  type UnitOfWork,
} from '../src/index.js';
import { connectionWith, listPresenter } from './fixtures.js';

type Note = { id: string; text: string };

interface DeskOptions {
  readonly leaseMs?: number;
  readonly renewMs?: number;
  readonly unitOfWork?: UnitOfWork;
  /** Milliseconds each write and each mail takes. */
  readonly slowMs?: number;
}

function desk(options: DeskOptions = {}) {
  const rows: Note[] = [];
  const sent: string[] = [];
  let now = Date.parse('2030-01-07T09:00:00Z');
  let clockRuns = false;
  const clock = () => new Date(clockRuns ? Date.now() : now);
  const gh = createGatehouse({
    rights: ['notes.write'] as const,
    ports: { mailer: { effect: 'notify', port: { send: (text: string) => sent.push(text) } } },
    services: (_connection, ports) => ({
      async add(text: string): Promise<Note> {
        if (options.slowMs) await sleep(options.slowMs);
        const note = { id: `n${rows.length + 1}`, text };
        rows.push(note);
        return note;
      },
      async mail(text: string) {
        if (options.slowMs) await sleep(options.slowMs);
        ports.mailer.send(text);
        return { sent: 1 };
      },
    }),
  });
  const tools = [
    gh.defineTool({
      name: 'add_note',
      description: 'Adds a note.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({ text: z.string() }),
      presenter: listPresenter<Note>(['id', 'text']),
      run: ({ input, services }) => services.add(input.text),
    }),
    gh.defineTool({
      name: 'mail_owner',
      description: 'Mails the owner.',
      effect: 'notify',
      requires: ['notes.write'],
      input: z.object({ text: z.string() }),
      presenter: listPresenter<{ sent: number }>(['sent']),
      prepare: ({ input }) => ({ content: { text: input.text }, summary: `Mail “${input.text}”` }),
      run: ({ input, services }) => services.mail(input.text),
    }),
  ];
  const replay = new MemoryReplayStore();
  const pending = new MemoryPendingActionStore();
  const lease = {
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.renewMs ? { renewMs: options.renewMs } : {}),
  };
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools,
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit: new MemoryAuditStore(),
      replay: { store: replay, ...lease },
      confirm: { store: pending, ...lease },
      unitOfWork: options.unitOfWork ?? separateCommits(),
      clock,
    }),
  );
  const connection = connectionWith(['notes.write'] as const);
  return {
    rows,
    sent,
    replay,
    pending,
    call: (tool: string, args: JsonObject) => server.callTool(connection, tool, args),
    connection,
    advance(ms: number) {
      now += ms;
    },
    /** From now on the server's clock is the real one (for leases timed against real timers). */
    realClock() {
      clockRuns = true;
    },
    now: () => clock().getTime(),
  };
}

const structured = (result: CallResult) =>
  result.structuredContent as {
    status?: string;
    result?: JsonObject;
    replayed?: boolean;
    next?: { arguments?: JsonObject };
    error?: { code: string; message: string };
  };

/** The replay key core uses for a call without `idempotency_key` (connection, tool, argument digest). */
async function replayKeyOf(connectionId: string, tool: string, args: JsonObject): Promise<string> {
  const { digest } = await import('../src/hashing.js');
  return `${connectionId}\u0000${tool}\u0000${digest(args)}`;
}

describe('replayGuard({ leaseMs, renewMs })', () => {
  it('keeps a slow call’s claim with renewals: a re-send meanwhile answers still_running, and one row is written', async () => {
    const d = desk({ leaseMs: 200, renewMs: 40, slowMs: 700 });
    d.realClock();
    const first = d.call('add_note', { text: 'boiler' });
    await sleep(450); // two leases later: without renewals the claim would have lapsed
    const during = structured(await d.call('add_note', { text: 'boiler' }));
    expect(during.error?.code).toBe('still_running');
    expect(structured(await first)).toMatchObject({ status: 'ok', result: { id: 'n1' } });
    expect(d.rows).toHaveLength(1);
    expect(structured(await d.call('add_note', { text: 'boiler' }))).toMatchObject({ replayed: true });
  });

  it('lets a call take over a claim whose holder died, once its lease lapsed', async () => {
    const d = desk({ leaseMs: 3_000 });
    const args = { text: 'boiler' };
    // a process that claimed the call and died: nobody renews its claim
    const key = await replayKeyOf(d.connection.connectionId, 'add_note', args);
    const { digest } = await import('../src/hashing.js');
    expect((await d.replay.begin(key, digest(args), 3_000, d.now())).state).toBe('started');
    expect(structured(await d.call('add_note', args)).error?.code).toBe('still_running');
    d.advance(3_000);
    expect(structured(await d.call('add_note', args))).toMatchObject({ status: 'ok', result: { id: 'n1' } });
    expect(d.rows).toHaveLength(1);
  });

  it('refuses a lease that a renewal waiting its longest could outlast, naming the wait', () => {
    const unitOfWork: UnitOfWork = { ...separateCommits(), maxWaitMs: 5_000 };
    expect(() => desk({ leaseMs: 6_000, renewMs: 1_000, unitOfWork })).toThrow(ConfigurationError);
    expect(() => desk({ leaseMs: 6_000, renewMs: 1_000, unitOfWork })).toThrow(/maxWaitMs, 5000 ms/);
    expect(() => desk({ leaseMs: 6_001, renewMs: 1_000, unitOfWork })).not.toThrow();
    expect(() => desk({ leaseMs: 1_000, renewMs: 1_000 })).toThrow(/renewMs/);
    expect(() => desk({ leaseMs: 0.5 })).toThrow(/positive integer/);
  });

  it('fits the default lease to a unit of work that waits up to 5 s, and refuses a wait it cannot outlast', () => {
    expect(() => desk({ unitOfWork: { ...separateCommits(), maxWaitMs: 5_000 } })).not.toThrow();
    expect(() => desk({ unitOfWork: { ...separateCommits(), maxWaitMs: 8_000 } })).toThrow(
      /the (claim|outward) guard's leaseMs \(10000 ms\)/,
    );
  });
});

describe('confirmGuard({ leaseMs, renewMs })', () => {
  async function previewed(d: ReturnType<typeof desk>) {
    const preview = structured(await d.call('mail_owner', { text: 'hello' }));
    const args = preview.next?.arguments as JsonObject;
    const action = await d.pending.findByTokenHash(sha256Hex(String(args.confirm_token)));
    return { args, action: action! };
  }

  it('keeps a slow confirmation’s claim with renewals: another confirmation meanwhile is locked out', async () => {
    const d = desk({ leaseMs: 200, renewMs: 40, slowMs: 700 });
    d.realClock();
    const { args } = await previewed(d);
    const first = d.call('confirm_action', args);
    await sleep(450);
    // another fingerprint (a key of its own), so it passes the replay stage and meets the action's claim
    const during = structured(await d.call('confirm_action', { ...args, idempotency_key: 'second-try' }));
    expect(during.error?.code).toBe('confirm_locked');
    expect(structured(await first)).toMatchObject({ status: 'ok', result: { action: 'mail_owner' } });
    expect(d.sent).toEqual(['hello']);
  });

  it('takes over the claim of a confirmation whose process died, once its lease lapsed, and sends once', async () => {
    const d = desk({ leaseMs: 3_000 });
    const { args, action } = await previewed(d);
    // a process that claimed the action and died before it ran
    const dead = { fence: 'dead-process', expiresAt: d.now() + 3_000 };
    expect(await d.pending.claim(action.id, ['pending'], dead, d.now())).toBe(true);
    expect(structured(await d.call('confirm_action', args)).error?.code).toBe('confirm_locked');
    d.advance(3_000);
    expect(structured(await d.call('confirm_action', args))).toMatchObject({
      status: 'ok',
      result: { action: 'mail_owner' },
    });
    expect(d.sent).toEqual(['hello']);
    // the dead claim's fence moves nothing any more
    expect(await d.pending.transition(action.id, ['claimed'], 'pending', undefined, dead)).toBe(false);
    expect((await d.pending.findById(action.id))?.status).toBe('executed');
  });

  it('refuses a confirm lease that a renewal waiting its longest could outlast', () => {
    const unitOfWork: UnitOfWork = { ...separateCommits(), maxWaitMs: 5_000 };
    expect(() =>
      createGatehouse({ rights: ['r'] as const, services: () => ({}) }).createServer(
        withGuards({
          name: 'n',
          version: '1',
          tools: [],
          authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
          confirm: { store: new MemoryPendingActionStore(), leaseMs: 5_500, renewMs: 1_000 },
          unitOfWork,
        }),
      ),
    ).toThrow(/the outward guard's leaseMs/);
  });
});
