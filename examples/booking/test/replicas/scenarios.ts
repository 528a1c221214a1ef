/**
 * The exactly-once scenarios of several replicas on one database, written
 * once and run on PostgreSQL (what holds across machines) and on one SQLite
 * file shared by processes on one machine (what a team may try first).
 * Each scenario counts what the database holds afterwards, not only what
 * the replicas answered.
 */

import { setTimeout as sleep } from 'node:timers/promises';
import { type HttpReply, RawHttpClient } from '@gatehousejs/testing';
import { Temporal } from 'temporal-polyfill';
import { expect, it } from 'vitest';
import type { BookingApp } from '../../src/app.js';
import { codeOf, structured } from '../fixtures/raw.js';
import { berlin } from '../fixtures/testApp.js';
import type { Cluster } from './cluster.js';

/** Reads a number from the shared database (`SELECT count(*) AS n …`). */
export type Count = (sql: string, ...params: unknown[]) => Promise<number>;

/** The rate limits the replicas run with: generous for writes, 10 per minute for notify. */
export const REPLICA_RATE_LIMITS = JSON.stringify({
  read: { capacity: 100_000, refillPerSecond: 10_000 },
  write: { capacity: 100_000, refillPerSecond: 10_000 },
  notify: { capacity: 10, refillPerSecond: 1 / 60 },
});

/** One client per replica for `token`; `client(i)` is the one for the `i`-th request. */
export function clientsFor(cluster: Cluster, token: string): (i: number) => RawHttpClient {
  const clients = new Map<string, RawHttpClient>();
  return (i) => {
    const { url } = cluster.at(i);
    let client = clients.get(url.href);
    if (!client) {
      client = new RawHttpClient({
        url,
        era: '2026-07-28',
        headers: { authorization: `Bearer ${token}` },
        timeoutMs: 30_000,
      });
      clients.set(url.href, client);
    }
    return client;
  };
}

/** The customers of the demo workspace. */
const CUSTOMERS = ['cu_alan', 'cu_ada', 'cu_grace'] as const;

export const createArgs = (days: number, time: string, minorUnits = 4500, customer = 'cu_alan') => ({
  customer_id: customer,
  starts_at: berlin(days, time),
  duration_minutes: 30,
  price: { minor_units: minorUnits, currency: 'EUR' },
});

/** The booking id of a created or replayed answer. */
export const bookingIdOf = (reply: HttpReply): string | undefined =>
  (structured(reply).result as { id?: string } | undefined)?.id;

/** The instant of `berlin(days, time)` in epoch milliseconds, as the bookings table stores it. */
export function startsAtMs(days: number, time: string): number {
  const { local, zone } = berlin(days, time);
  return Temporal.PlainDateTime.from(local).toZonedDateTime(zone).epochMilliseconds;
}

/** The tool errors that tell a client to send the same call again shortly. */
const RETRY_ANSWERS = new Set(['still_running', 'store_unavailable', 'outcome_unknown', 'confirm_locked']);

/**
 * How long a client waits before it sends the call again, from the answer's
 * own hint (`Retry-After` of a 503, `retry_after_seconds` of a retry answer),
 * or undefined when the answer is final.
 */
export function retryDelayMs(reply: HttpReply): number | undefined {
  if (reply.status === 503) return Number(reply.headers['retry-after'] ?? 1) * 1_000;
  const error = structured(reply).error;
  if (!error || !RETRY_ANSWERS.has(error.code)) return undefined;
  return Number(error.details?.retry_after_seconds ?? 1) * 1_000;
}

/** Whether an answer tells the client to send the call again (see {@link retryDelayMs}). */
export const isRetryAnswer = (reply: HttpReply): boolean => retryDelayMs(reply) !== undefined;

/**
 * Calls a tool as a client that honours the retry answers (`still_running`:
 * an identical call is in flight; `confirm_locked`: another confirmation
 * holds the action; `store_unavailable`: the database did not answer in
 * time, nothing ran; `outcome_unknown`: the commit's fate is not known; HTTP 503: admission could not read its stores in time), waiting
 * what each answer says, with jitter, and returns every answer it got, the
 * last one final.
 */
export async function untilSettled(call: (attempt: number) => Promise<HttpReply>): Promise<HttpReply[]> {
  const answers: HttpReply[] = [];
  for (let attempt = 0; attempt < 100; attempt++) {
    const reply = await call(attempt);
    answers.push(reply);
    const delay = retryDelayMs(reply);
    if (delay === undefined) break;
    await sleep(delay * (0.5 + Math.random() * 0.5));
  }
  return answers;
}

/**
 * 1,000 concurrent identical creates over the replicas: one booking. Every
 * answer is the result, a replay of it, or a retry answer, which the client
 * follows until it gets the result or its replay.
 */
export async function identicalCreates(client: (i: number) => RawHttpClient, count: Count) {
  const args = createArgs(30, '09:00');
  const settled = await Promise.all(
    Array.from({ length: 1_000 }, (_, i) =>
      untilSettled((attempt) => client(i + attempt).callTool('create_booking', args, { id: i + 1 })),
    ),
  );
  const replies = settled.map((answers) => answers.at(-1)!);
  const firstAnswers = settled.map((answers) => answers[0]!);
  const notRetried = firstAnswers.filter((reply) => !isRetryAnswer(reply) && !bookingIdOf(reply));
  expect(notRetried.map((reply) => codeOf(reply) ?? reply.status)).toEqual([]);
  const rows = await count(
    'SELECT count(*) AS n FROM bookings WHERE customer_id = $1 AND starts_at = $2',
    'cu_alan',
    startsAtMs(30, '09:00'),
  );
  expect(rows).toBe(1);
  const ids = new Set(replies.map(bookingIdOf).filter((id) => id !== undefined));
  expect(ids.size).toBe(1);
  const kinds = replies.map((reply) => {
    if (reply.status !== 200) return `http ${reply.status}`;
    const code = codeOf(reply);
    if (code) return code;
    return structured(reply).replayed === true ? 'replayed' : 'created';
  });
  expect(kinds.filter((kind) => kind === 'created')).toHaveLength(1);
  expect(kinds.filter((kind) => kind !== 'created' && kind !== 'replayed')).toEqual([]);
}

/** 50 concurrent creates with one business key and different prices: one booking, 49 duplicates naming it. */
export async function sameBusinessKey(client: (i: number) => RawHttpClient, count: Count) {
  const replies = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      client(i).callTool('create_booking', createArgs(31, '10:00', 5000 + i), { id: i + 1 }),
    ),
  );
  const rows = await count(
    'SELECT count(*) AS n FROM bookings WHERE customer_id = $1 AND starts_at = $2',
    'cu_alan',
    startsAtMs(31, '10:00'),
  );
  expect(rows).toBe(1);
  const created = replies.map(bookingIdOf).filter((id) => id !== undefined);
  expect(created).toHaveLength(1);
  const duplicates = replies.filter((reply) => codeOf(reply) === 'duplicate');
  expect(duplicates).toHaveLength(49);
  for (const reply of duplicates) {
    expect(structured(reply).error?.details?.existing_id).toBe(created[0]);
  }
}

/**
 * `total` distinct concurrent creates: `total` bookings and `total` audit
 * rows. The client follows retry answers (a busy database), as a client would.
 */
export async function distinctCreates(client: (i: number) => RawHttpClient, count: Count, total = 1_000) {
  const auditBefore = await count(
    "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'create_booking' AND outcome = 'ok'",
  );
  const slots = Array.from({ length: total }, (_, i) => {
    const minutes = 8 * 60 + (i % 20) * 30;
    const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    return { days: 60 + Math.floor(i / 20), time };
  });
  const settled = await Promise.all(
    slots.map((slot, i) =>
      untilSettled((attempt) =>
        client(i + attempt).callTool(
          'create_booking',
          createArgs(slot.days, slot.time, 4500, CUSTOMERS[i % 3]),
          {
            id: i + 1,
          },
        ),
      ),
    ),
  );
  const replies = settled.map((answers) => answers.at(-1)!);
  const failed = replies.filter((reply) => bookingIdOf(reply) === undefined);
  expect(failed.map((reply) => codeOf(reply) ?? reply.status)).toEqual([]);
  const from = startsAtMs(60, '08:00');
  const to = startsAtMs(60 + 50, '08:00');
  expect(
    await count('SELECT count(*) AS n FROM bookings WHERE starts_at >= $1 AND starts_at < $2', from, to),
  ).toBe(total);
  const auditAfter = await count(
    "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'create_booking' AND outcome = 'ok'",
  );
  expect(auditAfter - auditBefore).toBe(total);
}

/** 200 concurrent confirmations of one token over the replicas: one message sent. */
export async function concurrentConfirms(client: (i: number) => RawHttpClient, count: Count) {
  const created = await client(0).callTool('create_booking', createArgs(32, '11:00'), { id: 1 });
  const bookingId = bookingIdOf(created);
  expect(bookingId).toBeDefined();
  const preview = structured(
    await client(1).callTool('notify_customer', { booking_id: bookingId }, { id: 2 }),
  );
  expect(preview.status).toBe('PREVIEW');
  const confirm = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
  const settled = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      untilSettled((attempt) => client(i + attempt).callTool('confirm_action', confirm, { id: i + 10 })),
    ),
  );
  const replies = settled.map((answers) => answers.at(-1)!);
  expect(await count('SELECT count(*) AS n FROM outbound_messages WHERE booking_id = $1', bookingId)).toBe(1);
  const kinds = new Set(
    replies.map((reply) => codeOf(reply) ?? (structured(reply).replayed === true ? 'replayed' : 'sent')),
  );
  for (const kind of kinds) expect(['sent', 'replayed', 'confirm_used', 'confirm_locked']).toContain(kind);
  expect(replies.filter((reply) => !codeOf(reply) && structured(reply).replayed !== true)).toHaveLength(1);
}

/** A notify bucket of 10 per minute, 30 previews spread over the replicas: exactly 10 succeed. */
export async function sharedBucket(client: (i: number) => RawHttpClient) {
  const created = await client(0).callTool('create_booking', createArgs(33, '12:00'), { id: 1 });
  const bookingId = bookingIdOf(created);
  const replies = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      client(i).callTool('notify_customer', { booking_id: bookingId, note: `n${i}` }, { id: i + 2 }),
    ),
  );
  const previews = replies.filter((reply) => structured(reply).status === 'PREVIEW');
  const limited = replies.filter((reply) => codeOf(reply) === 'rate_limited');
  expect({ previews: previews.length, limited: limited.length }).toEqual({ previews: 10, limited: 20 });
}

/** The global switch set with the CLI: every replica refuses its next request with 503. */
export async function globalSwitch(cluster: Cluster, client: (i: number) => RawHttpClient) {
  await cluster.cli('switch', 'global', 'on');
  try {
    for (let i = 0; i < cluster.replicas.length; i++) {
      const reply = await client(i).listTools();
      expect(reply.status).toBe(503);
      expect(reply.headers['retry-after']).toBeDefined();
    }
  } finally {
    await cluster.cli('switch', 'global', 'off');
  }
  for (let i = 0; i < cluster.replicas.length; i++) expect((await client(i).listTools()).status).toBe(200);
}

/** What the shared scenarios run against, ready once the file's `beforeAll` has run. */
export interface ScenarioContext {
  readonly cluster: Cluster;
  readonly client: (i: number) => RawHttpClient;
  readonly count: Count;
  /** Opens the product on the same database in this process, for a person's decisions on its page. */
  readonly product: () => Promise<BookingApp>;
}

/**
 * A person's action across processes (I9): a 2026-07-28 client that declares
 * URL elicitation asks replica 0, a person approves on the product (this
 * process), and the client's retry with the request state reaches replica 1:
 * it answers the stored outcome, and the booking is deleted once.
 */
export async function approvalAcrossReplicas(context: ScenarioContext) {
  const { cluster, client, count } = context;
  const created = await client(0).callTool('create_booking', createArgs(34, '13:00'), { id: 1 });
  const bookingId = bookingIdOf(created);
  expect(bookingId).toBeDefined();
  const token = await cluster.mint();
  const eliciting = (i: number) =>
    new RawHttpClient({
      url: cluster.at(i).url,
      era: '2026-07-28',
      capabilities: { elicitation: { url: {} } },
      headers: { authorization: `Bearer ${token}` },
      timeoutMs: 30_000,
    });
  const args = { booking_id: bookingId };
  const first = (await eliciting(0).callTool('delete_booking', args)).result as Record<string, unknown>;
  expect(first.resultType).toBe('input_required');
  const state = String(first.requestState);
  const product = await context.product();
  try {
    const approver = await product.approverFor('ws_acme', 'p_olivia');
    const approvals = product.mcp.approvals!;
    const view = await approvals.view(state, approver!);
    expect((await approvals.approve(state, approver!, { contentHash: view!.contentHash! })).outcome).toBe(
      'executed',
    );
  } finally {
    await product.close();
  }
  const retry = {
    name: 'delete_booking',
    arguments: args,
    requestState: state,
    inputResponses: { approval: { action: 'accept' } },
  };
  const answered = await eliciting(1).request('tools/call', retry);
  const result = (answered.result as { structuredContent: { status: string; replayed?: boolean } })
    .structuredContent;
  expect(result).toMatchObject({ status: 'ok', replayed: true });
  expect(await count('SELECT count(*) AS n FROM bookings WHERE id = $1', bookingId)).toBe(0);
  expect(await count("SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'delete_booking'")).toBe(1);
}

/** Registers the exactly-once scenarios every engine must pass, against `context()`. */
export function exactlyOnce(context: () => ScenarioContext): void {
  it('turns 1,000 concurrent identical creates into one booking', () => {
    const { client, count } = context();
    return identicalCreates(client, count);
  }, 60_000);
  it('lets one of 50 creates with one business key through; 49 duplicates name it', () => {
    const { client, count } = context();
    return sameBusinessKey(client, count);
  }, 60_000);
  it('writes 1,000 distinct creates with 1,000 audit rows', () => {
    const { client, count } = context();
    return distinctCreates(client, count);
  }, 120_000);
  it('sends one message for 200 concurrent confirmations of one token', () => {
    const { client, count } = context();
    return concurrentConfirms(client, count);
  }, 60_000);
  it('shares the rate bucket: 10 of 30 notify previews pass', async () => {
    const { cluster } = context();
    return sharedBucket(clientsFor(cluster, await cluster.mint()));
  }, 60_000);
  it(
    'answers a retry on another replica with the outcome a person approved in a third process, deleting once',
    () => approvalAcrossReplicas(context()),
    60_000,
  );
  it('refuses on every replica once the global switch is on', () => {
    const { cluster, client } = context();
    return globalSwitch(cluster, client);
  }, 60_000);
}
