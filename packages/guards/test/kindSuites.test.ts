/**
 * The kit's suites of the claim and outward kinds, against the built-in
 * guards and against a second implementation of each written from scratch
 * (examples/ownGuards.ts): a team's replacement proves itself the same way.
 */
import { MemoryPendingActionStore, MemoryReplayStore } from '@gatehousejs/core';
import { describeClaimGuard, describeOutwardGuard } from '@gatehousejs/testing/vitest';
import { confirmGuard, replayGuard } from '../src/index.js';
import { mapClaimGuard, mapOutwardGuard } from './examples/ownGuards.js';

describeClaimGuard('replayGuard', (lease) => replayGuard({ store: new MemoryReplayStore(), ...lease }));
// #region claim-suite
describeClaimGuard('a team’s own claim guard (mapClaimGuard)', (lease) => mapClaimGuard(lease));
// #endregion claim-suite

describeOutwardGuard('confirmGuard', (options) =>
  confirmGuard({ store: new MemoryPendingActionStore(), ...options }),
);
// #region outward-suite
describeOutwardGuard('a team’s own outward guard (mapOutwardGuard)', (options) => mapOutwardGuard(options));
// #endregion outward-suite
