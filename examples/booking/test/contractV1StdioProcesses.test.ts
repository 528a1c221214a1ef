import { describeV1StdioContract } from './fixtures/v1StdioContract.js';

// the booking product on an SDK v1 McpServer over stdio, one real server process per credential on
// the shared database file (switches, roles, clock and log seen across processes), driven by the
// SDK v1 client: every check once
describeV1StdioContract('v1', { servers: 'processes', coverage: 'smoke' });
