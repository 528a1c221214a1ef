import { describeContract } from '../../src/vitest.js';
import { notesFixture } from './host/fixture.js';

// #region describe-contract
describeContract(notesFixture(), { fuzz: { numRuns: 40 } });
// #endregion describe-contract
