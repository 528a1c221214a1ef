import { describeV1Runs } from './v1Host/suite.js';

// the minimal host's Gatehouse server, mounted on an SDK v1 low-level Server, stateful (Mcp-Session-Id)
describeV1Runs('stateful');
