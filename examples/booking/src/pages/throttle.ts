import type { BucketLimit } from '@gatehousejs/core';
import type { BookingApp } from '../app.js';
import { nowOf, type PageOptions, sha256 } from './context.js';

/** The outcome of asking to try a password. */
export type Attempt =
  | { readonly ok: true; succeeded(): Promise<void> }
  | { readonly ok: false; readonly retryAfterSeconds: number };

/** Sign-in throttling: one bucket per account, one per client address. */
export interface SignInThrottle {
  /** Takes one try from both buckets before the password is checked; `succeeded()` gives them back. */
  attempt(email: string, address: string): Promise<Attempt>;
}

const DEFAULT_WINDOW_MS = 15 * 60_000;

/**
 * Failures per account and per address within a window, counted in the
 * database's shared rate buckets (core's RateBucketStore), so every replica
 * sees the same counts. A try takes a token from each bucket first, and a
 * success refunds both: only failures count. When either bucket is empty
 * the password is not even checked.
 */
export function signInThrottle(app: BookingApp, options: PageOptions): SignInThrottle {
  const store = app.database.stores.rateBuckets;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const limit = (failures: number): BucketLimit => ({
    capacity: failures,
    refillPerSecond: failures / (windowMs / 1000),
  });
  const account = limit(options.accountFailures ?? 5);
  const address = limit(options.addressFailures ?? 20);
  return {
    async attempt(email, from) {
      const now = nowOf(app);
      const accountKey = `pages.signin.account:${sha256(email.trim().toLowerCase())}`;
      const addressKey = `pages.signin.address:${from}`;
      const byAccount = await store.take(accountKey, account, now);
      const byAddress = await store.take(addressKey, address, now);
      if (byAccount.ok && byAddress.ok) {
        return {
          ok: true,
          async succeeded() {
            await store.refund(accountKey, account, nowOf(app));
            await store.refund(addressKey, address, nowOf(app));
          },
        };
      }
      if (byAccount.ok) await store.refund(accountKey, account, now);
      if (byAddress.ok) await store.refund(addressKey, address, now);
      const waits = [byAccount, byAddress].map((taken) => (taken.ok ? 0 : taken.retryAfterMs));
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) };
    },
  };
}
