import { describeContract } from '../../src/vitest.js';
import { v1NotesFixture } from './v1Host/fixture.js';

// the minimal host's Gatehouse server, mounted on an SDK v1 low-level Server,
// driven by the kit's raw client and by the official SDK clients
for (const mode of ['stateless', 'stateful'] as const) {
  describeContract(v1NotesFixture(mode), { fuzz: { numRuns: 40 } });
  describeContract(v1NotesFixture(mode, 'v1'), { fuzz: { numRuns: 20 } });
  describeContract(v1NotesFixture(mode, 'v2-legacy'), { fuzz: { numRuns: 20 } });
}
