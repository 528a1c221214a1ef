import { describeContract } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';

describeContract(notesFixture(), { fuzz: { numRuns: 40 } });
