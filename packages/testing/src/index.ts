export type {
  HttpReply,
  HttpRequestOptions,
  HttpSendOptions,
  PreparedRequest,
  RawHttpClientOptions,
} from './httpClient.js';
export { RawHttpClient } from './httpClient.js';
export { MCP_META_KEYS } from './internal/envelope.js';
export type { ProcessExit, RawStdioClientOptions, StdioSendOptions } from './stdioClient.js';
export { RawStdioClient } from './stdioClient.js';
export { parseErrorJsonLine, toolResultText } from './toolResult.js';
export type {
  ClientInfo,
  JsonRpcError,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  McpEra,
  RawMcpClient,
  RawReply,
  RequestOptions,
} from './types.js';
