import {
  ConfigurationError,
  defineGuard,
  digest,
  type Guard,
  type Outcome,
  type ReplayBegin,
  type ReplayStore,
  refuse,
  type ToolCall,
} from '@gatehousejs/core';

/** Options of {@link replayGuard}. */
export interface ReplayGuardOptions {
  readonly store: ReplayStore;
  /**
   * How long a result answers an identical call sent without `idempotency_key`; default
   * 5 minutes: long enough for a client to re-send a lost request, short enough that a
   * deliberate repeat (A→B→A) runs again.
   */
  readonly windowMs?: number;
  /** How long a result answers a call re-sent with the same `idempotency_key`; default 24 hours. */
  readonly keyedWindowMs?: number;
  /** How long a running call holds its fingerprint before a crashed run is presumed dead; default 60 s. */
  readonly leaseMs?: number;
  /** How long a duplicate waits for the first call's result before `still_running`; default 10 s. */
  readonly waitMs?: number;
  /** Poll interval while waiting; default 20 ms. */
  readonly pollMs?: number;
  readonly clock?: () => number;
  /** Receives a store failure after the write ran (the result is still returned). */
  readonly onStoreError?: (error: unknown) => void;
}

const KEY_ARGUMENT = 'idempotency_key';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function positive(name: string, value: number | undefined, fallback: number): number {
  const chosen = value ?? fallback;
  if (!Number.isFinite(chosen) || chosen <= 0)
    throw new ConfigurationError(`replayGuard: ${name} must be a positive number.`);
  return chosen;
}

/** Every argument sent, guard-owned ones included, except the idempotency key itself. */
function sentArguments(call: ToolCall): Record<string, unknown> {
  const { [KEY_ARGUMENT]: _key, ...guardOwned } = call.guardArguments;
  return { ...call.arguments, ...guardOwned };
}

/**
 * Replay protection for every silent write (I10). The fingerprint is
 * connection + tool + SHA-256 of the canonical JSON (RFC 8785) of every
 * argument sent, guard-owned ones included (so a duplicate guard's
 * `separate: true` is a different call); with `idempotency_key` the key
 * replaces the digest and is bound to it (same key, other arguments:
 * `idempotency_key_conflict`). Inside the window (5 minutes without a key, 24
 * hours with one) a repeat returns the first result with `replayed: true` and
 * runs nothing. A duplicate arriving while the first runs waits for its
 * result (bounded), else gets `still_running`. Refused calls are not cached;
 * the cache holds presenter output with one-time fields withheld. A store that
 * fails before the write refuses the call (fails closed).
 */
export function replayGuard(options: ReplayGuardOptions): Guard {
  const windowMs = positive('windowMs', options.windowMs, 5 * 60_000);
  const keyedWindowMs = positive('keyedWindowMs', options.keyedWindowMs, 24 * 3_600_000);
  const leaseMs = positive('leaseMs', options.leaseMs, 60_000);
  const waitMs = positive('waitMs', options.waitMs, 10_000);
  const pollMs = positive('pollMs', options.pollMs, 20);
  const clock = options.clock ?? Date.now;
  const { store } = options;

  const conflict = (call: ToolCall, key: string): Outcome =>
    refuse({
      code: 'idempotency_key_conflict',
      message: `The idempotency key ${key} was already used with other arguments for ${call.tool.name}.`,
      fix: 'Use a new idempotency key for different arguments, or resend the original arguments.',
      details: { idempotency_key: key },
    });

  async function settle(key: string, argumentsDigest: string, idempotencyKey: string | undefined) {
    const deadline = clock() + waitMs;
    for (;;) {
      const found: ReplayBegin = await store.begin(key, argumentsDigest, leaseMs, clock());
      if (found.state !== 'running' || clock() >= deadline) return found;
      if (idempotencyKey !== undefined && found.argumentsDigest !== argumentsDigest) return found;
      await sleep(pollMs);
    }
  }

  return defineGuard({
    name: 'replay',
    effects: ['write'],
    arguments: {
      [KEY_ARGUMENT]: {
        schema: {
          type: 'string',
          minLength: 8,
          maxLength: 128,
          pattern: '^[A-Za-z0-9._:-]+$',
          description:
            'Optional key for this change; resending it with the same arguments returns the first result.',
        },
      },
    },
    handle: async function replay(call, next) {
      const idempotencyKey = call.guardArguments[KEY_ARGUMENT] as string | undefined;
      const argumentsDigest = digest(sentArguments(call));
      const scope = `${call.connection.connectionId}\u0000${call.tool.name}`;
      const key =
        idempotencyKey === undefined
          ? `${scope}\u0000${argumentsDigest}`
          : `${scope}\u0000key\u0000${idempotencyKey}`;
      let found: ReplayBegin;
      try {
        found = await settle(key, argumentsDigest, idempotencyKey);
      } catch {
        return refuse({
          code: 'store_unavailable',
          message: 'The replay store could not be reached; nothing ran.',
          fix: 'Retry shortly.',
        });
      }
      if (found.state !== 'started' && found.argumentsDigest !== argumentsDigest)
        return conflict(call, idempotencyKey ?? '');
      if (found.state === 'completed') return { kind: 'result', data: found.result, replayed: true };
      if (found.state === 'running') {
        return refuse({
          code: 'still_running',
          message: `An identical ${call.tool.name} call is still running.`,
          fix: 'Retry the same call in a few seconds; it will return that call’s result.',
          details: { retry_after_seconds: Math.ceil(leaseMs / 1000) },
        });
      }
      let outcome: Outcome;
      try {
        outcome = await next();
      } catch (error) {
        await store.release(key).catch(() => undefined);
        throw error;
      }
      if (outcome.kind !== 'result') {
        await store.release(key).catch(() => undefined);
        return outcome;
      }
      try {
        const kept = call.tool.forReplay?.(outcome.data) ?? outcome.data;
        const window = idempotencyKey === undefined ? windowMs : keyedWindowMs;
        await store.complete(key, argumentsDigest, kept, window, clock());
      } catch (error) {
        options.onStoreError?.(error);
      }
      return outcome;
    },
  });
}
