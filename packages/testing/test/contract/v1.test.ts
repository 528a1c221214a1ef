import { describeV1Runs } from './v1Host/suite.js';

// the minimal host's Gatehouse server, mounted on an SDK v1 low-level Server, stateless
// (stateful: v1Stateful.test.ts)
describeV1Runs('stateless');
