import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  type BucketLimit,
  type CallResult,
  ConfigurationError,
  createGatehouse,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  type RateBucketStore,
  separateCommits,
} from '../src/index.js';
import { connection, listPresenter, RIGHTS } from './fixtures.js';

/** A memory bucket store that records each take and refund as `<verb> <bucket>`. */
class LoggingRateStore extends MemoryRateBucketStore {
  readonly log: string[] = [];
  override async take(key: string, limit: BucketLimit, now: number) {
    this.log.push(`take ${key.split(':')[1]}`);
    return super.take(key, limit, now);
  }
  override async refund(key: string, limit: BucketLimit, now: number) {
    this.log.push(`refund ${key.split(':')[1]}`);
    return super.refund(key, limit, now);
  }
}

/** A server with one tool per bucket: `read` and `write` each on their own store, the rest on `store`. */
function desk(stores?: unknown) {
  const notes: { id: string; text: string }[] = [];
  const sent: string[] = [];
  const mailer = { send: (text: string) => void sent.push(text) };
  const gh = createGatehouse({
    rights: RIGHTS,
    ports: { mailer: { effect: 'notify', port: mailer } },
    services: (_connection, ports) => ({
      add(text: string) {
        const note = { id: `n${notes.length + 1}`, text };
        notes.push(note);
        return note;
      },
      mailer: ports.mailer,
    }),
  });
  const notePresenter = listPresenter<{ id: string; text: string }>(['id', 'text']);
  const countPresenter = listPresenter<{ count: number }>(['count']);
  const tools = [
    gh.defineTool({
      name: 'count_notes',
      description: 'Counts the notes.',
      effect: 'read',
      input: z.object({}),
      presenter: countPresenter,
      run: () => ({ count: notes.length }),
    }),
    gh.defineTool({
      name: 'add_note',
      description: 'Adds a note.',
      effect: 'write',
      input: z.object({ text: z.string().min(1) }),
      presenter: notePresenter,
      run: ({ input, services }) => services.add(input.text),
    }),
    gh.defineTool({
      name: 'mail_notes',
      description: 'Mails the note count.',
      effect: 'notify',
      input: z.object({}),
      presenter: countPresenter,
      prepare: () => ({ content: { count: notes.length }, summary: `Mail ${notes.length} notes` }),
      run: ({ services }) => {
        services.mailer.send(`${notes.length} notes`);
        return { count: notes.length };
      },
    }),
  ];
  const shared = new LoggingRateStore();
  const reads = new LoggingRateStore();
  const writes = new LoggingRateStore();
  const server = gh.createServer(
    withGuards({
      name: 'rates',
      version: '1.0.0',
      tools,
      authenticate: async () => ({ ok: false, status: 401, reason: 'not used' }),
      audit: new MemoryAuditStore(),
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      confirm: { store: new MemoryPendingActionStore() },
      rate: {
        store: shared,
        stores: (stores ?? { read: reads, write: writes }) as Partial<Record<'read', RateBucketStore>>,
        limits: { write: { capacity: 2, refillPerSecond: 0.001 } },
      },
    }),
  );
  return { server, notes, sent, shared, reads, writes };
}

const structured = (result: CallResult) =>
  result.structuredContent as {
    status?: string;
    replayed?: boolean;
    confirm_token?: string;
    confirm_summary?: string;
    error?: { code: string };
  };

describe('rateGuard({ stores })', () => {
  it('takes read tools, confirm_action, reject_action and list_recent_changes from the read bucket store', async () => {
    const d = desk();
    expect(structured(await d.server.callTool(connection(), 'count_notes', {}))).toMatchObject({
      status: 'ok',
    });
    const first = structured(await d.server.callTool(connection(), 'mail_notes', {}));
    const second = structured(await d.server.callTool(connection(), 'mail_notes', {}));
    expect(first.status).toBe('PREVIEW');
    const confirmed = await d.server.callTool(connection(), 'confirm_action', {
      confirm_token: first.confirm_token,
      confirm_summary: first.confirm_summary,
    });
    expect(structured(confirmed).status).toBe('ok');
    const rejected = await d.server.callTool(connection(), 'reject_action', {
      confirm_token: second.confirm_token,
    });
    expect(structured(rejected).status).toBe('ok');
    expect(structured(await d.server.callTool(connection(), 'list_recent_changes', {})).status).toBe('ok');

    expect(d.reads.log).toEqual(['take read', 'take read', 'take read', 'take read']);
    expect(d.shared.log).toEqual(['take notify', 'take notify']);
    expect(d.writes.log).toEqual([]);
    expect(d.sent).toEqual(['0 notes']);
  });

  it('takes writes from the write bucket store, whose limit alone decides', async () => {
    const d = desk();
    for (const text of ['a', 'b', 'c']) await d.server.callTool(connection(), 'add_note', { text });
    expect(d.writes.log).toEqual(['take write', 'take write', 'take write']);
    expect(d.notes.map((n) => n.text)).toEqual(['a', 'b']);
    expect(d.reads.log).toEqual([]);
    expect(d.shared.log).toEqual([]);
    const read = await d.server.callTool(connection(), 'count_notes', {});
    expect(structured(read)).toMatchObject({ status: 'ok', result: { count: 2 } });
  });

  it('gives a replayed call its token back to the store it came from', async () => {
    const d = desk();
    await d.server.callTool(connection(), 'add_note', { text: 'a' }, { requestId: 1 });
    const again = await d.server.callTool(connection(), 'add_note', { text: 'a' }, { requestId: 2 });
    expect(structured(again).replayed).toBe(true);
    expect(d.writes.log).toEqual(['take write', 'take write', 'refund write']);
    // The refund restored the second of two tokens: one more write runs.
    await d.server.callTool(connection(), 'add_note', { text: 'b' });
    expect(d.notes.map((n) => n.text)).toEqual(['a', 'b']);

    const p = structured(await d.server.callTool(connection(), 'mail_notes', {}));
    const args = { confirm_token: p.confirm_token, confirm_summary: p.confirm_summary };
    await d.server.callTool(connection(), 'confirm_action', args, { requestId: 3 });
    const resent = await d.server.callTool(connection(), 'confirm_action', args, { requestId: 4 });
    expect(structured(resent).replayed).toBe(true);
    expect(d.reads.log).toEqual(['take read', 'take read', 'refund read']);
    expect(d.shared.log).toEqual(['take notify']);
    expect(d.sent).toEqual(['2 notes']);
  });

  it('refuses a bucket store without take and refund, an unknown effect class and a non-object map', () => {
    expect(() => desk({ read: {} })).toThrow(ConfigurationError);
    expect(() => desk({ read: {} })).toThrow(/rateGuard: stores\.read must be a RateBucketStore/);
    expect(() => desk({ write: { take: async () => ({ ok: true, remaining: 1 }) } })).toThrow(
      /rateGuard: stores\.write/,
    );
    expect(() => desk({ reads: new MemoryRateBucketStore() })).toThrow(/unknown effect class reads/);
    expect(() => desk('memory')).toThrow(/rateGuard: stores must map/);
  });
});
