import { MemoryPendingActionStore, type PendingActionStore } from '@gatehousejs/core';
import {
  describeAuditStore,
  describeAuthorizationStore,
  describeCredentialStore,
  describePendingActionStore,
  describeRateBucketStore,
  describeReplayStore,
  describeSwitchStore,
} from '@gatehousejs/testing/vitest';
import { describe, expect, it } from 'vitest';
import {
  SqliteAuditStore,
  SqliteAuthorizationStore,
  SqliteCredentialStore,
  SqlitePendingActionStore,
  SqliteRateBucketStore,
  SqliteReplayStore,
  SqliteSwitchStore,
} from '../src/index.js';
import { sqliteFactory, tempDatabase } from './fixtures/tempDatabase.js';

// #region describe-replay-store
describeReplayStore(
  'SqliteReplayStore',
  sqliteFactory(
    'gatehouse_replay',
    (db) => new SqliteReplayStore(db),
    (store, now) => store.purgeExpired(now),
  ),
);
// #endregion describe-replay-store
describePendingActionStore(
  'SqlitePendingActionStore',
  sqliteFactory('gatehouse_pending_actions', (db) => new SqlitePendingActionStore(db)),
);

// The contract skips findById and listAwaitingApproval for a store without
// them (they are optional in the interface); the bundled stores must have both.
describe('the bundled pending-action stores', () => {
  const approvalMethods = (store: PendingActionStore) => [
    typeof store.findById,
    typeof store.listAwaitingApproval,
  ];

  it('have findById and listAwaitingApproval, in memory and on SQLite', () => {
    const temp = tempDatabase();
    try {
      expect(approvalMethods(new MemoryPendingActionStore())).toEqual(['function', 'function']);
      expect(approvalMethods(new SqlitePendingActionStore(temp.open()))).toEqual(['function', 'function']);
    } finally {
      temp.dispose();
    }
  });
});

describeAuditStore(
  'SqliteAuditStore',
  sqliteFactory('gatehouse_audit', (db) => new SqliteAuditStore(db)),
);
describeAuthorizationStore(
  'SqliteAuthorizationStore',
  sqliteFactory('gatehouse_oauth_records', (db) => new SqliteAuthorizationStore(db)),
);
describeSwitchStore(
  'SqliteSwitchStore',
  sqliteFactory('gatehouse_switches', (db) => new SqliteSwitchStore(db)),
);
describeRateBucketStore(
  'SqliteRateBucketStore',
  sqliteFactory(
    'gatehouse_rate_buckets',
    (db) => new SqliteRateBucketStore(db),
    (store, now) => store.purgeExpired(now),
  ),
);
describeCredentialStore(
  'SqliteCredentialStore',
  sqliteFactory('gatehouse_credentials', (db) => new SqliteCredentialStore(db)),
);
