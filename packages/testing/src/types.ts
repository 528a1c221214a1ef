/** The MCP protocol revision a raw client speaks: the `initialize` era or the stateless per-request era. */
export type McpEra = '2025-11-25' | '2026-07-28';

/** A JSON-RPC request id. */
export type JsonRpcId = string | number;

/** Any JSON object received from a server, kept as parsed (nothing is validated or stripped). */
export type JsonRpcMessage = Readonly<Record<string, unknown>>;

/** A JSON-RPC error object (`code` and `message` checked, `data` as sent). */
export interface JsonRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC response as received: an object carrying `id` and `result` or `error`. */
export interface JsonRpcResponse extends JsonRpcMessage {
  readonly id: JsonRpcId | null;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** A JSON-RPC request as a raw client builds it. */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId;
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** The client identity sent as `clientInfo` (2025-11-25) or under the `clientInfo` `_meta` key (2026-07-28). */
export interface ClientInfo {
  readonly name: string;
  readonly version: string;
  readonly [key: string]: unknown;
}

/** Options every request method takes. */
export interface RequestOptions {
  /** The JSON-RPC id to send; defaults to the next number of the client's counter. */
  readonly id?: JsonRpcId;
  /**
   * `_meta` entries merged over the era's envelope (and over `params._meta`). An entry set to
   * `undefined` is left out, so a test can drop a required envelope key.
   */
  readonly meta?: Readonly<Record<string, unknown>>;
}

/**
 * What a raw client hands back for one request. It never throws on a JSON-RPC error or a tool
 * error: the test inspects `response`, `result` and `error`.
 */
export interface RawReply {
  /** The id the request carried, when it had one. */
  readonly id: JsonRpcId | undefined;
  /**
   * The response whose id equals the request id; failing that, a response with `id: null`
   * (what a server sends when it could not read the id, e.g. a parse error).
   */
  readonly response: JsonRpcResponse | undefined;
  /** `response.result` when it is an object. */
  readonly result: Readonly<Record<string, unknown>> | undefined;
  /** `response.error` when it is a well-formed JSON-RPC error object. */
  readonly error: JsonRpcError | undefined;
}

/**
 * The request surface both raw clients share, so a contract suite can run over HTTP or stdio.
 *
 * Clients send what the test asks for and ignore every tool annotation or hint: nothing is
 * refused or confirmed on the client side.
 */
export interface RawMcpClient<TReply extends RawReply = RawReply> {
  /** The protocol revision this client speaks. */
  readonly era: McpEra;
  /** Runs the `initialize` handshake once (2025-11-25 era only) and returns its reply. */
  initialize(): Promise<TReply>;
  /** Sends `server/discover`. */
  discover(options?: RequestOptions): Promise<TReply>;
  /** Sends one JSON-RPC request, with the era's envelope, and returns the matching reply. */
  request(
    method: string,
    params?: Readonly<Record<string, unknown>>,
    options?: RequestOptions,
  ): Promise<TReply>;
  /** Sends `tools/list`. */
  listTools(options?: RequestOptions): Promise<TReply>;
  /** Sends `tools/call` for `name` with `args` as `arguments`. */
  callTool(name: string, args?: unknown, options?: RequestOptions): Promise<TReply>;
  /** Releases the client's resources. */
  close(): Promise<void>;
  /** Same as `close`, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
