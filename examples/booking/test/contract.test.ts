import { describeContract } from '@gatehousejs/testing/vitest';
import { bookingFixture } from './fixtures/contractHost.js';

describeContract(bookingFixture(), { fuzz: { numRuns: 40 } });
