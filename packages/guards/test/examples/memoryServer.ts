// #region memory-server
import {
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
} from '@gatehousejs/core';
import { createSwitches } from '@gatehousejs/guards';
import { bookingProduct } from './bookingTools.js';

const { gh, tools, authenticate } = bookingProduct(); // your gatehouse, tools and credentials
const audit = new MemoryAuditStore();
export const switches = createSwitches({ store: new MemorySwitchStore(), audit, tenantDefault: true });

export const server = gh.createServer({
  name: 'booking',
  version: '1.0.0',
  tools,
  authenticate,
  audit,
  confirm: { store: new MemoryPendingActionStore() },
  replay: { store: new MemoryReplayStore() }, // a re-sent write returns its first result
  unitOfWork: separateCommits(), // memory stores commit on their own: the weaker promise
  rate: {
    store: new MemoryRateBucketStore(),
    limits: { write: { capacity: 30, refillPerSecond: 0.5 } },
  },
  guards: [switches.guard], // 503 at admission; a switched-off tenant sees no tools
});
// #endregion memory-server
export { audit };
