import { describeContract } from '../../src/vitest.js';
import { v1NotesFixture } from './v1Host/fixture.js';

// the minimal host's Gatehouse server, mounted on an SDK v1 low-level Server: the full suite
// through the kit's raw client, every check once through each official SDK client
for (const mode of ['stateless', 'stateful'] as const) {
  describeContract(v1NotesFixture(mode), { fuzz: { numRuns: 40 } });
  describeContract(v1NotesFixture(mode, 'v1'), { coverage: 'smoke', fuzz: { numRuns: 10 } });
  describeContract(v1NotesFixture(mode, 'v2-legacy'), { coverage: 'smoke', fuzz: { numRuns: 10 } });
}
