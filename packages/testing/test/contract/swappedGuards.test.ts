/**
 * The contract suite with a team's own claim and outward guards plugged in
 * (written from scratch in the guards package's examples): replay (I10)
 * and the two-step confirm (I9) hold just as with the built-in ones.
 */
import { mapClaimGuard, mapOutwardGuard } from '../../../guards/test/examples/ownGuards.js';
import { CONTRACT_CHECKS } from '../../src/index.js';
import { describeContract } from '../../src/vitest.js';
import { swappedFixture } from './host/fixture.js';

const fixture = swappedFixture({
  claim: () => mapClaimGuard({ leaseMs: 10_000, renewMs: 2_000 }),
  outward: () => mapOutwardGuard({ ttlMs: 600_000, leaseMs: 10_000, renewMs: 2_000 }),
});

describeContract(fixture, {
  checks: CONTRACT_CHECKS.filter((check) => /^I(9|10)\./.test(check.id)),
  fuzz: false,
});
