import { describeContract } from '@gatehouse/testing';
import { bookingFixture } from './fixtures/contractHost.js';

describeContract(bookingFixture(), { fuzz: { numRuns: 40 } });
