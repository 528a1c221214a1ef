import { describeV1StdioContract } from './fixtures/v1StdioContract.js';

// the booking product on an SDK v1 McpServer over stdio (in process), driven by the SDK v2 client in legacy mode: every check once
describeV1StdioContract('v2-legacy', { servers: 'in-process', coverage: 'smoke' });
