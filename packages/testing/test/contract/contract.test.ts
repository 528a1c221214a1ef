import { describeContract } from '../../src/vitest.js';
import { notesFixture } from './host/fixture.js';

describeContract(notesFixture(), { fuzz: { numRuns: 40 } });
