import { describeV1StdioContract } from './fixtures/v1StdioContract.js';

// the booking product on an SDK v1 McpServer over stdio, driven by the SDK v1 client
describeV1StdioContract('v1');
