import { describeV1StdioContract } from './fixtures/v1StdioContract.js';

// the booking product on an SDK v1 McpServer over stdio (in process), driven by the SDK v1 client: the full suite
describeV1StdioContract('v1', { servers: 'in-process', coverage: 'full' });
