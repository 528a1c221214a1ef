import type { TestContext } from 'vitest';

/**
 * One store under test, as a contract suite's factory returns it. `restart`
 * and `count` are optional; the tests that need them are reported as skipped
 * when they are missing, never passed silently.
 */
export interface StoreFixture<S> {
  /** A fresh, empty store. */
  readonly store: S;
  /**
   * Closes the store and opens a new one over the same persistent data (a
   * process restart); returns the reopened store. Omit it for memory stores.
   */
  readonly restart?: () => S | Promise<S>;
  /** How many records the store physically holds, expired ones included (bounded-growth checks). */
  readonly count?: () => number | Promise<number>;
  /**
   * Housekeeping as the host runs it on a timer: deletes what expired at
   * `now` (the SQL stores' `purgeExpired`). The bounded-growth checks call it
   * every {@link HOUSEKEEPING_EVERY} calls; omit it for a store that forgets
   * expired records by itself (in memory), never for one that needs it.
   */
  readonly purge?: (now: number) => unknown;
  /** Releases what the fixture opened (database handles, temp files); runs after each test. */
  readonly close?: () => void | Promise<void>;
}

/** Builds a fresh {@link StoreFixture} for each test. */
export type StoreFactory<S> = () => StoreFixture<S> | Promise<StoreFixture<S>>;

/** Opens a fixture and closes it when the test finishes, pass or fail. */
export async function openFixture<S>(
  factory: StoreFactory<S>,
  context: TestContext,
): Promise<StoreFixture<S>> {
  const fixture = await factory();
  context.onTestFinished(async () => {
    await fixture.close?.();
  });
  return fixture;
}

/** Restarts the fixture, or marks the test skipped when it cannot restart. */
export async function restarted<S>(fixture: StoreFixture<S>, context: TestContext): Promise<S> {
  if (!fixture.restart) return context.skip('the fixture offers no restart()');
  return fixture.restart();
}

/** Counts the fixture's records, or marks the test skipped when it cannot count. */
export async function counted<S>(fixture: StoreFixture<S>, context: TestContext): Promise<number> {
  if (!fixture.count) return context.skip('the fixture offers no count()');
  return fixture.count();
}

/**
 * `n` calls of `fn` started together, before any of them is awaited. It
 * answers once every call has settled: when one fails, it rejects with the
 * first failure only after the others are done, so no call of a failed case
 * is still running (and writing) when the next case empties the store.
 */
export async function concurrently<T>(n: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const settled = await Promise.allSettled(Array.from({ length: n }, (_, i) => fn(i)));
  const failed = settled.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<T>).value);
}

/** How many store calls the bounded-growth checks make between two housekeeping runs. */
export const HOUSEKEEPING_EVERY = 100;

/**
 * The time a "stays bounded" case may take: thousands of sequential store
 * calls, each a round trip on a database server, and more on a loaded machine.
 */
export const BOUNDED_TIMEOUT_MS = 90_000;
