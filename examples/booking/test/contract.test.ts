import { describeContract } from '@gatehousejs/testing';
import { bookingFixture } from './fixtures/contractHost.js';

describeContract(bookingFixture(), { fuzz: { numRuns: 40 } });
