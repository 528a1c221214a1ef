import { createSwitches } from '@gatehousejs/access';
import {
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
} from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { bookingProduct } from './bookingTools.js';

/** A booking server with every replay and rate option spelled out, as the docs show them. */
export function tunedServer(product = bookingProduct()) {
  const { gh, tools, authenticate } = product;
  const audit = new MemoryAuditStore();
  const stores = {
    replay: new MemoryReplayStore(), // replicas share one store
    pendingActions: new MemoryPendingActionStore(),
    rateBuckets: new MemoryRateBucketStore(), // replicas share one store
  };
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  const server = gh.createServer({
    name: 'booking',
    version: '1.0.0',
    tools,
    authenticate,
    audit,
    unitOfWork: separateCommits(),
    guards: standardGuards(stores, {
      switches,
      // #region replay
      replay: {
        windowMs: 5 * 60_000, // a re-send without idempotency_key is answered for 5 minutes
        keyedWindowMs: 24 * 3_600_000, // a re-send with the same idempotency_key for 24 hours
        leaseMs: 10_000, // how long a claim lasts without a renewal
        renewMs: 2_000, // how often a running call renews it (a heartbeat)
        waitMs: 0, // an identical call in flight gets still_running at once
      },
      // #endregion replay
      // #region rate
      rate: {
        limits: {
          read: { capacity: 120, refillPerSecond: 2 },
          write: { capacity: 30, refillPerSecond: 0.5 },
          notify: { capacity: 10, refillPerSecond: 1 / 60 },
          wake: { capacity: 3, refillPerSecond: 1 / 600 },
        },
        fallback: { capacity: 60, refillPerSecond: 1 },
      },
      // #endregion rate
    }),
  });
  return { server, ...product };
}
