import { describeContract } from '../../src/index.js';
import { v1NotesFixture } from './v1Host/fixture.js';

// the minimal host's Gatehouse server, mounted on an SDK v1 low-level Server
describeContract(v1NotesFixture('stateless'), { fuzz: { numRuns: 40 } });
describeContract(v1NotesFixture('stateful'), { fuzz: { numRuns: 40 } });
