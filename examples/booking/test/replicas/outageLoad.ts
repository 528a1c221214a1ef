/**
 * A steady mixed load over the replicas for the database outage tests, and
 * a ledger of what it was told: every answer classified, every create with
 * its arguments and acknowledged id, every confirmation with its token. After
 * the outage the ledger retries what was not acknowledged, as a client would
 * (`outageHoldings.ts` then checks it against what the database holds).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type HttpReply, RawHttpClient } from '@gatehousejs/testing';
import { codeOf, structured } from '../fixtures/raw.js';
import type { Cluster, Replica } from './cluster.js';
import { bookingIdOf, createArgs, startsAtMs } from './scenarios.js';

/** Generous buckets for every effect class: the load must never meet `rate_limited`. */
export const OUTAGE_RATE_LIMITS = JSON.stringify({
  read: { capacity: 100_000, refillPerSecond: 10_000 },
  write: { capacity: 100_000, refillPerSecond: 10_000 },
  notify: { capacity: 100_000, refillPerSecond: 10_000 },
});

/**
 * The answers a client may get while the database is away: each tells it to
 * retry, with a hint. `confirm_locked` is one: a claim the outage left behind
 * (its release could not reach the database) lapses within its lease, and
 * the answer gives the time left on it.
 */
const RETRY_KINDS = new Set([
  'store_unavailable',
  'outcome_unknown',
  'still_running',
  'confirm_locked',
  'http 503',
]);

/** What a client retries after the outage: the retry answers, and failures that say nothing of the outcome. */
const unsettled = (kind: string): boolean =>
  RETRY_KINDS.has(kind) ||
  kind === 'internal_error' ||
  kind.startsWith('network ') ||
  kind.startsWith('jsonrpc ');

/** What a replica may answer at all during an outage. */
export const ACCEPTED_KINDS: ReadonlySet<string> = new Set(['result', ...RETRY_KINDS]);

/** One answer the load got. */
export interface Answer {
  readonly tool: string;
  readonly replica: string;
  readonly kind: string;
  /** The first 300 characters of the body, for the failure message. */
  readonly text: string;
}

/**
 * An answer's kind: `result`, a tool error's code, `http 503` (with
 * Retry-After), `http 503 without retry-after`, `http <status>`,
 * `jsonrpc <code>` or `network <code>`.
 */
export function kindOf(reply: HttpReply): string {
  if (reply.status === 503) return reply.headers['retry-after'] ? 'http 503' : 'http 503 without retry-after';
  if (reply.status !== 200) return `http ${reply.status}`;
  if (reply.error) return `jsonrpc ${reply.error.code}`;
  if (reply.result?.isError === true) return codeOf(reply) ?? 'tool error without a code';
  return 'result';
}

interface Create {
  readonly args: ReturnType<typeof createArgs> & { idempotency_key: string };
  readonly first: string;
  id: string | undefined;
  last: string;
}

interface Confirm {
  readonly bookingId: string;
  readonly args: { confirm_token: string; confirm_summary: string };
  readonly first: string;
  /** `sent`, `replayed`, or the last error kind. */
  last: string;
}

/** The replicas and a token: one client per replica, and round robin over the live ones. */
export class Fleet {
  readonly #clients = new Map<string, RawHttpClient>();
  constructor(
    readonly cluster: Cluster,
    readonly token: string,
  ) {}

  /** The replicas still running. */
  live(): Replica[] {
    return this.cluster.replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
  }

  clientOf(replica: Replica): RawHttpClient {
    let client = this.#clients.get(replica.url.href);
    if (!client) {
      client = new RawHttpClient({
        url: replica.url,
        era: '2026-07-28',
        headers: { authorization: `Bearer ${this.token}` },
        timeoutMs: 30_000,
      });
      this.#clients.set(replica.url.href, client);
    }
    return client;
  }

  /** The replica for the `i`-th call: round robin over the live ones; undefined when none runs. */
  at(i: number): Replica | undefined {
    const live = this.live();
    return live[i % Math.max(live.length, 1)];
  }
}

/** Everything a load was answered, and what it created and confirmed. */
export class Ledger {
  readonly answers: Answer[] = [];
  readonly creates: Create[] = [];
  readonly confirms: Confirm[] = [];
  #slot = 0;
  #calls = 0;
  readonly #notified = new Set<string>();

  /**
   * `firstDay`: the day (from today) of the first slot; slots are distinct
   * starts between 08:00 and 18:00, `stepMinutes` apart (one technician can
   * take 30-minute visits 30 minutes apart).
   */
  constructor(
    readonly fleet: Fleet,
    readonly firstDay: number,
    readonly name: string,
    readonly stepMinutes = 1,
  ) {}

  get #perDay(): number {
    return Math.floor(600 / this.stepMinutes);
  }

  /**
   * Calls `tool` on `replica`, recording the answer (a network failure too,
   * as `network <code>`; no replica left running as `no live replica`).
   */
  async call(
    replica: Replica | undefined,
    tool: string,
    args: object,
  ): Promise<{ kind: string; reply?: HttpReply }> {
    const id = ++this.#calls;
    if (!replica) {
      this.answers.push({ tool, replica: 'none', kind: 'no live replica', text: '' });
      await sleep(50);
      return { kind: 'no live replica' };
    }
    try {
      const reply = await this.fleet.clientOf(replica).callTool(tool, args, { id });
      const kind = kindOf(reply);
      this.answers.push({ tool, replica: replica.url.port, kind, text: reply.text.slice(0, 300) });
      return { kind, reply };
    } catch (error) {
      const kind = `network ${(error as NodeJS.ErrnoException).code ?? (error as Error).name}`;
      this.answers.push({ tool, replica: replica.url.port, kind, text: String(error) });
      return { kind };
    }
  }

  /** A create of a start no other create of this ledger uses; its answer recorded. */
  async create(
    replica: Replica | undefined,
    technician?: string,
  ): Promise<{ kind: string; id: string | undefined }> {
    const slot = this.#slot++;
    const minutes = 8 * 60 + (slot % this.#perDay) * this.stepMinutes;
    const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
    const args = {
      ...createArgs(this.firstDay + Math.floor(slot / this.#perDay), time),
      ...(technician ? { technician_id: technician } : {}),
      idempotency_key: `${this.name}-${String(slot).padStart(6, '0')}`,
    };
    const { kind, reply } = await this.call(replica, 'create_booking', args);
    const id = reply ? bookingIdOf(reply) : undefined;
    this.creates.push({ args, first: kind, id, last: kind });
    return { kind, id };
  }

  /** A preview of a mail about a booking nobody notified yet, then its confirmation on another replica. */
  async notifyAndConfirm(i: number): Promise<void> {
    const booking = this.creates.find((c) => c.id !== undefined && !this.#notified.has(c.id))?.id;
    if (!booking) {
      await this.create(this.fleet.at(i));
      return;
    }
    this.#notified.add(booking);
    const { reply } = await this.call(this.fleet.at(i), 'notify_customer', { booking_id: booking });
    const preview = reply ? structured(reply) : undefined;
    if (preview?.status !== 'PREVIEW') return;
    const args = {
      confirm_token: String(preview.confirm_token),
      confirm_summary: String(preview.confirm_summary),
    };
    const { kind, reply: confirmed } = await this.call(this.fleet.at(i + 1), 'confirm_action', args);
    this.confirms.push({
      bookingId: booking,
      args,
      first: kind,
      last: confirmed ? sentOrCode(confirmed) : kind,
    });
  }

  /** One call of the mix: a list, a read, a create, or a mail preview and its confirmation. */
  async step(i: number): Promise<void> {
    const replica = this.fleet.at(i);
    const known = this.creates.findLast((c) => c.id !== undefined)?.id;
    switch (i % 4) {
      case 0:
        await this.call(replica, 'find_bookings', { limit: 5 });
        return;
      case 1:
        if (known) await this.call(replica, 'get_booking', { id: known });
        else await this.create(replica);
        return;
      case 2:
        await this.create(replica);
        return;
      default:
        await this.notifyAndConfirm(i);
    }
  }

  /** The answers whose kind is not one an outage may give, and the `internal_error` answers by tool. */
  unexpected(): { unexpected: Answer[]; internalErrors: Record<string, number> } {
    const unexpected = this.answers.filter((a) => !ACCEPTED_KINDS.has(a.kind));
    const internalErrors: Record<string, number> = {};
    for (const a of this.answers) {
      if (a.kind === 'internal_error') internalErrors[a.tool] = (internalErrors[a.tool] ?? 0) + 1;
    }
    return { unexpected, internalErrors };
  }

  /** The first answer text of each tool and kind that is not a result. */
  samples(): Record<string, string> {
    const samples: Record<string, string> = {};
    for (const { tool, kind, text } of this.answers) {
      if (kind !== 'result') samples[`${tool} ${kind}`] ??= text.slice(0, 240);
    }
    return samples;
  }

  /** How many answers of each kind, per tool. */
  tally(): Record<string, Record<string, number>> {
    const tally: Record<string, Record<string, number>> = {};
    for (const { tool, kind } of this.answers) {
      const row = tally[tool] ?? {};
      row[kind] = (row[kind] ?? 0) + 1;
      tally[tool] = row;
    }
    return tally;
  }

  /** Sends every unacknowledged create and confirmation again until each settles (or 15 s pass). */
  async settle(): Promise<void> {
    const deadline = Date.now() + 15_000;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const creates = this.creates.filter((c) => c.id === undefined && unsettled(c.last));
      const confirms = this.confirms.filter((c) => unsettled(c.last));
      if (creates.length === 0 && confirms.length === 0) return;
      await Promise.all([
        ...creates.map(async (c, k) => {
          const { kind, reply } = await this.call(this.fleet.at(attempt + k), 'create_booking', c.args);
          c.id = reply ? bookingIdOf(reply) : undefined;
          c.last = reply && c.id ? (structured(reply).replayed === true ? 'replayed' : 'created') : kind;
        }),
        ...confirms.map(async (c, k) => {
          const { kind, reply } = await this.call(this.fleet.at(attempt + k), 'confirm_action', c.args);
          c.last = reply ? sentOrCode(reply) : kind;
        }),
      ]);
      await sleep(300);
    }
  }

  /** The starts this ledger's creates used, as the bookings table stores them. */
  range(): { from: number; to: number } {
    const days = Math.floor(Math.max(this.#slot - 1, 0) / this.#perDay) + 1;
    return { from: startsAtMs(this.firstDay, '00:00'), to: startsAtMs(this.firstDay + days, '00:00') };
  }
}

/** A confirmation's answer: `sent`, `replayed`, or its kind. */
function sentOrCode(reply: HttpReply): string {
  const kind = kindOf(reply);
  if (kind !== 'result') return kind;
  return structured(reply).replayed === true ? 'replayed' : 'sent';
}

/** Runs `workers` concurrent loops of `ledger.step` until `stop()` resolves. */
export function startLoad(ledger: Ledger, workers = 6): { stop(): Promise<void> } {
  let running = true;
  let next = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) {
      await ledger.step(next++);
      await sleep(10);
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * Sends creates to each of `replicas` until one is acknowledged there, from
 * `since`; the seconds each took by port (null when it did not within
 * `withinMs`, or exited).
 */
export async function secondsToWrite(
  ledger: Ledger,
  replicas: readonly Replica[],
  since: number,
  withinMs = 15_000,
): Promise<Record<string, number | null>> {
  const seconds: Record<string, number | null> = {};
  await Promise.all(
    replicas.map(async (replica) => {
      while (Date.now() - since < withinMs && replica.child.exitCode === null) {
        if ((await ledger.create(replica)).id) {
          seconds[replica.url.port] = Math.round((Date.now() - since) / 100) / 10;
          return;
        }
        await sleep(100);
      }
      seconds[replica.url.port] = null;
    }),
  );
  return seconds;
}
