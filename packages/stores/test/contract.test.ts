import {
  describeAuditStore,
  describeCredentialStore,
  describePendingActionStore,
  describeRateBucketStore,
  describeReplayStore,
  describeSwitchStore,
} from '@gatehousejs/testing/vitest';
import {
  SqliteAuditStore,
  SqliteCredentialStore,
  SqlitePendingActionStore,
  SqliteRateBucketStore,
  SqliteReplayStore,
  SqliteSwitchStore,
} from '../src/index.js';
import { sqliteFactory } from './fixtures/tempDatabase.js';

describeReplayStore(
  'SqliteReplayStore',
  sqliteFactory('gatehouse_replay', (db) => new SqliteReplayStore(db)),
);
describePendingActionStore(
  'SqlitePendingActionStore',
  sqliteFactory('gatehouse_pending_actions', (db) => new SqlitePendingActionStore(db)),
);
describeAuditStore(
  'SqliteAuditStore',
  sqliteFactory('gatehouse_audit', (db) => new SqliteAuditStore(db)),
);
describeSwitchStore(
  'SqliteSwitchStore',
  sqliteFactory('gatehouse_switches', (db) => new SqliteSwitchStore(db)),
);
describeRateBucketStore(
  'SqliteRateBucketStore',
  sqliteFactory('gatehouse_rate_buckets', (db) => new SqliteRateBucketStore(db)),
);
describeCredentialStore(
  'SqliteCredentialStore',
  sqliteFactory('gatehouse_credentials', (db) => new SqliteCredentialStore(db)),
);
