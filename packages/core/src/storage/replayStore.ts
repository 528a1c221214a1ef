import type { JsonObject } from '../json.js';
import { ExpiringMap } from './expiringMap.js';

/** What {@link ReplayStore.begin} found for a fingerprint. */
export type ReplayBegin =
  /**
   * The caller now owns the fingerprint and must `complete` or `release` it,
   * presenting `fence`: a token unique to this claim, so a call whose lease ran
   * out and was taken over cannot complete over the newer claim.
   */
  | { readonly state: 'started'; readonly fence: string }
  /** An identical call is running; its result is not known yet. */
  | { readonly state: 'running'; readonly argumentsDigest: string }
  /** An earlier call finished; its presented result, ready to return. */
  | { readonly state: 'completed'; readonly argumentsDigest: string; readonly result: JsonObject };

/**
 * Replay records of writes and confirmations (I10). `begin` is
 * insert-if-absent and commits on its own: of many concurrent callers with
 * one key exactly one gets `started`, with a fencing token. Records expire
 * after the window; a `started` record that is never completed expires after
 * its lease, so a crashed call cannot block the key for ever, and the next
 * claim gets a new fence.
 */
export interface ReplayStore {
  begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin>;
  /**
   * Stores the presented result (one-time fields already removed) for the
   * window, only while `fence` is the key's current claim; returns whether it
   * did. Core calls it inside the unit of work, so a store sharing the
   * host's database commits it with the write (`unit` is the unit's handle).
   */
  complete(
    key: string,
    fence: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
    unit?: unknown,
  ): Promise<boolean>;
  /** Forgets a running claim whose call failed, if `fence` is still its claim, so a retry may run. */
  release(key: string, fence: string): Promise<void>;
  /**
   * Whether `complete` with `fence` would store its result now: the key's
   * record is the running claim holding `fence`, or there is none (a lapsed
   * lease nobody took over, swept). False once another claim took the key
   * over or a result is stored. Core asks after a call ended without a
   * result, so a refusal decided after an identical call took over (and
   * perhaps did the work) is never given as the answer.
   */
  holds(key: string, fence: string): Promise<boolean>;
  /**
   * Extends the running claim holding `fence` to `now + leaseMs`, committed
   * on its own; returns whether it did. False once the claim is no longer the
   * key's (completed, released, or taken over) or its lease lapsed at `now`
   * (a lapsed claim nobody took over still completes). Core
   * calls it as a heartbeat while the claimed call runs, so the lease can be
   * short: a crashed holder's claim lapses within one lease, a slow live one
   * keeps it.
   */
  renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean>;
}

type Entry =
  | { state: 'running'; argumentsDigest: string; fence: string }
  | { state: 'completed'; argumentsDigest: string; result: JsonObject };

/** A {@link ReplayStore} in process memory: tests, demos, single-process servers. */
export class MemoryReplayStore implements ReplayStore {
  readonly #entries = new ExpiringMap<string, Entry>();
  #fences = 0;

  /** Live records, for tests of bounded memory. */
  get size(): number {
    return this.#entries.size;
  }

  async begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    const found = this.#entries.get(key, now);
    if (found?.state === 'running') return { state: 'running', argumentsDigest: found.argumentsDigest };
    if (found) return found;
    const fence = `f${++this.#fences}`;
    this.#entries.set(key, { state: 'running', argumentsDigest, fence }, now + leaseMs, now);
    return { state: 'started', fence };
  }

  async complete(
    key: string,
    fence: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
    _unit?: unknown,
  ): Promise<boolean> {
    const current = this.#entries.get(key, Number.NEGATIVE_INFINITY);
    // A lapsed lease nobody took over still completes; a newer claim wins.
    if (current && (current.state !== 'running' || current.fence !== fence)) return false;
    this.#entries.set(key, { state: 'completed', argumentsDigest, result }, now + windowMs, now);
    return true;
  }

  async release(key: string, fence: string): Promise<void> {
    if (this.#holding(key, fence)) this.#entries.delete(key);
  }

  async holds(key: string, fence: string): Promise<boolean> {
    return this.#entries.get(key, Number.NEGATIVE_INFINITY) === undefined || this.#holding(key, fence);
  }

  async renew(key: string, fence: string, leaseMs: number, now: number): Promise<boolean> {
    const current = this.#entries.get(key, now);
    if (current?.state !== 'running' || current.fence !== fence) return false;
    this.#entries.set(key, current, now + leaseMs, now);
    return true;
  }

  #holding(key: string, fence: string): boolean {
    const current = this.#entries.get(key, Number.NEGATIVE_INFINITY);
    return current?.state === 'running' && current.fence === fence;
  }
}
