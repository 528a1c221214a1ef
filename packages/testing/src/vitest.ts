// The vitest entry: suites that register `describe`/`it` blocks. Needs vitest (a peer).
export type { DescribeContractOptions } from './contract/describeContract.js';
export { describeContract } from './contract/describeContract.js';
export type { ClaimGuardFactory } from './guards/claimGuard.js';
export { describeClaimGuard } from './guards/claimGuard.js';
export type { OutwardGuardFactory } from './guards/outwardGuard.js';
export { describeOutwardGuard } from './guards/outwardGuard.js';
export { describeAuditStore } from './stores/auditStore.js';
export { describeAuthorizationStore } from './stores/authorizationStore.js';
export { describeCredentialStore } from './stores/credentialStore.js';
export type { StoreFactory, StoreFixture } from './stores/fixture.js';
export { describePendingActionStore } from './stores/pendingActionStore.js';
export { describeRateBucketStore } from './stores/rateBucketStore.js';
export { describeReplayStore } from './stores/replayStore.js';
export { describeSwitchStore } from './stores/switchStore.js';
export type { DescribeSurfaceLockOptions } from './surface/describeSurfaceLock.js';
export { describeSurfaceLock } from './surface/describeSurfaceLock.js';
