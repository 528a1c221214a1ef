import { describeContract } from '../../../src/vitest.js';
import { v1NotesFixture } from './fixture.js';
import type { V1Mode } from './serveV1.js';

/**
 * Registers the notes desk's runs on an SDK v1 low-level Server in `mode`:
 * the full suite through the kit's raw client, every check once through
 * each official SDK client. One file per mode, so the two run in parallel.
 */
export function describeV1Runs(mode: V1Mode): void {
  describeContract(v1NotesFixture(mode), { fuzz: { numRuns: 40 } });
  // #region describe-contract
  describeContract(v1NotesFixture(mode, 'v1'), { coverage: 'smoke', fuzz: { numRuns: 10 } });
  // #endregion describe-contract
  describeContract(v1NotesFixture(mode, 'v2-legacy'), { coverage: 'smoke', fuzz: { numRuns: 10 } });
}
