import {
  MemoryAuditStore,
  MemoryAuthorizationStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
} from '@gatehousejs/core';
import {
  describeAuditStore,
  describeAuthorizationStore,
  describeCredentialStore,
  describePendingActionStore,
  describeRateBucketStore,
  describeReplayStore,
  describeSwitchStore,
} from '../src/vitest.js';

describeReplayStore('MemoryReplayStore', () => {
  const store = new MemoryReplayStore();
  return { store, count: () => store.size };
});
describePendingActionStore('MemoryPendingActionStore', () => ({ store: new MemoryPendingActionStore() }));
describeAuditStore('MemoryAuditStore', () => ({ store: new MemoryAuditStore() }));
describeSwitchStore('MemorySwitchStore', () => ({ store: new MemorySwitchStore() }));
describeAuthorizationStore('MemoryAuthorizationStore', () => ({ store: new MemoryAuthorizationStore() }));
describeRateBucketStore('MemoryRateBucketStore', () => {
  const store = new MemoryRateBucketStore();
  return { store, count: () => store.size };
});
describeCredentialStore('MemoryCredentialStore', () => ({ store: new MemoryCredentialStore() }));
