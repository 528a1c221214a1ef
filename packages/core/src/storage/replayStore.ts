import type { JsonObject } from '../json.js';
import { ExpiringMap } from './expiringMap.js';

/** What {@link ReplayStore.begin} found for a fingerprint. */
export type ReplayBegin =
  /** The caller now owns the fingerprint and must `complete` or `release` it. */
  | { readonly state: 'started' }
  /** An identical call is running; its result is not known yet. */
  | { readonly state: 'running'; readonly argumentsDigest: string }
  /** An earlier call finished; its presented result, ready to return. */
  | { readonly state: 'completed'; readonly argumentsDigest: string; readonly result: JsonObject };

/**
 * Replay records of silent writes (I10). `begin` is insert-if-absent: of many
 * concurrent callers with one key exactly one gets `started`. Records expire
 * after the window; a `started` record that is never completed expires after
 * its lease, so a crashed call cannot block the key for ever.
 */
export interface ReplayStore {
  begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin>;
  /**
   * Stores the presented result (one-time fields already removed) for the
   * window, with the digest of the arguments that produced it: the one given
   * here, not one read back, since the `started` record may have expired and
   * been swept while the call ran.
   */
  complete(
    key: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
  ): Promise<void>;
  /** Forgets a started key whose call failed, so a retry may run. A completed result is never released. */
  release(key: string): Promise<void>;
}

type Entry =
  | { state: 'running'; argumentsDigest: string }
  | { state: 'completed'; argumentsDigest: string; result: JsonObject };

/** A {@link ReplayStore} in process memory: tests, demos, single-process servers. */
export class MemoryReplayStore implements ReplayStore {
  readonly #entries = new ExpiringMap<string, Entry>();

  /** Live records, for tests of bounded memory. */
  get size(): number {
    return this.#entries.size;
  }

  async begin(key: string, argumentsDigest: string, leaseMs: number, now: number): Promise<ReplayBegin> {
    const found = this.#entries.get(key, now);
    if (found) return found;
    this.#entries.set(key, { state: 'running', argumentsDigest }, now + leaseMs, now);
    return { state: 'started' };
  }

  async complete(
    key: string,
    argumentsDigest: string,
    result: JsonObject,
    windowMs: number,
    now: number,
  ): Promise<void> {
    this.#entries.set(key, { state: 'completed', argumentsDigest, result }, now + windowMs, now);
  }

  async release(key: string): Promise<void> {
    if (this.#entries.get(key, Number.NEGATIVE_INFINITY)?.state === 'running') this.#entries.delete(key);
  }
}
