import { ClientCore, type CoreOptions } from './internal/clientCore.js';
import { standardHeaders } from './internal/envelope.js';
import { type HeaderLayer, httpExchange, mergeHeaders } from './internal/httpExchange.js';
import { findResponse, parseJsonMessages, replyFor, requestIdOf } from './internal/jsonRpc.js';
import { parseSseData } from './internal/sse.js';
import type { JsonRpcMessage, JsonRpcRequest, RawMcpClient, RawReply, RequestOptions } from './types.js';

/** Options of {@link RawHttpClient}. */
export interface RawHttpClientOptions extends CoreOptions {
  /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string | URL;
  /** Headers sent with every request (`Authorization`, `Origin`, `Host`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** How long to wait for a complete HTTP response; default 10 000 ms. */
  readonly timeoutMs?: number;
}

/** Per-request options of {@link RawHttpClient}. */
export interface HttpRequestOptions extends RequestOptions {
  /** Headers merged last; a header set to `undefined` is not sent (it removes a default). */
  readonly headers?: HeaderLayer;
}

/** Options of {@link RawHttpClient.send}. */
export interface HttpSendOptions {
  /** Headers merged last; a header set to `undefined` is not sent. */
  readonly headers?: HeaderLayer;
  /** The exact body text to post instead of `JSON.stringify(body)`, e.g. malformed JSON. */
  readonly rawBody?: string;
  /** The HTTP method; default `POST` (a `GET` or `DELETE` sends no body). */
  readonly method?: string;
}

/** One HTTP exchange: the JSON-RPC reply plus everything the server sent. */
export interface HttpReply extends RawReply {
  /** The HTTP status; 401, 403, 503 and the like resolve like any other. */
  readonly status: number;
  /** The response headers, names lower-cased. */
  readonly headers: Readonly<Record<string, string>>;
  /** Every JSON object in the body: the single JSON value, a batch, or every SSE event. */
  readonly messages: readonly JsonRpcMessage[];
  /** The raw response body. */
  readonly text: string;
}

/** A request `prepare` built: the body and the exact headers `request` would send with it. */
export interface PreparedRequest {
  readonly body: JsonRpcRequest;
  readonly headers: Record<string, string>;
}

const BASE_HEADERS = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };

function messagesOf(contentType: string | undefined, text: string): JsonRpcMessage[] {
  if (contentType?.toLowerCase().startsWith('text/event-stream')) {
    return parseSseData(text).flatMap(parseJsonMessages);
  }
  return parseJsonMessages(text);
}

/**
 * A Streamable HTTP MCP client that sends exactly what a test says and ignores every hint.
 *
 * It never refuses, confirms or retries: any header, id or body (even malformed) goes out as
 * given, and HTTP errors (401, 403, 503, …), JSON-RPC errors and tool errors all resolve as an
 * {@link HttpReply} to inspect. Only network failures and timeouts reject. In the 2026-07-28 era
 * each request carries the `_meta` envelope and the `mcp-protocol-version`, `mcp-method` and
 * `mcp-name` headers; in the 2025-11-25 era the `initialize` handshake runs once, lazily, and a
 * returned `mcp-session-id` is sent back.
 *
 * @example
 * await using client = new RawHttpClient({ url, era: '2026-07-28', headers: { authorization: 'Bearer t' } });
 * const reply = await client.callTool('cancel_booking', { id: 'bk_1' }, { id: 7 });
 */
export class RawHttpClient
  extends ClientCore<HttpReply, HttpRequestOptions>
  implements RawMcpClient<HttpReply>
{
  /** The endpoint every request goes to. */
  readonly url: URL;
  readonly #headers: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  #sessionId: string | undefined;
  #protocolVersion: string | undefined;

  /** Checks the options (throws a `TypeError` on a bad URL or era); sends nothing. */
  constructor(options: RawHttpClientOptions) {
    super(options);
    this.url = new URL(options.url);
    if (this.url.protocol !== 'http:' && this.url.protocol !== 'https:') {
      throw new TypeError(`url must be http or https; got ${this.url.protocol}`);
    }
    this.#headers = { ...options.headers };
    this.#timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** The `mcp-session-id` the server returned from `initialize`, if any. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Builds what `request` would send, so a test can alter it and pass it to `send`. */
  prepare(
    method: string,
    params?: Readonly<Record<string, unknown>>,
    options?: HttpRequestOptions,
  ): PreparedRequest {
    const body = this.buildRequest(method, params, options);
    return { body, headers: this.#requestHeaders(body, options?.headers) };
  }

  /**
   * Sends `body` (or `rawBody`) as is, with the accept/content-type defaults, the client's
   * headers, the 2025-11-25 session headers once initialized, and `options.headers`. It adds no
   * envelope and no 2026-07-28 standard headers. `response` matches the id found in the body.
   */
  async send(body: unknown, options: HttpSendOptions = {}): Promise<HttpReply> {
    const method = (options.method ?? 'POST').toUpperCase();
    const text = options.rawBody ?? JSON.stringify(body);
    const exchange = await httpExchange({
      url: this.url,
      method,
      headers: mergeHeaders(BASE_HEADERS, this.#headers, this.#sessionHeaders(), options.headers),
      body: method === 'GET' || method === 'DELETE' ? undefined : text,
      timeoutMs: this.#timeoutMs,
    });
    const id = requestIdOf(options.rawBody ?? body);
    const messages = messagesOf(exchange.headers['content-type'], exchange.text);
    return { ...exchange, messages, ...replyFor(id, findResponse(messages, id)) };
  }

  /** Ends a 2025-11-25 session with `DELETE` when the server issued one; otherwise does nothing. */
  async close(): Promise<void> {
    if (this.#sessionId === undefined) return;
    await this.send(undefined, { method: 'DELETE' }).catch(() => undefined);
    this.#sessionId = undefined;
  }

  /** Same as {@link RawHttpClient.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  protected override exchange(
    body: JsonRpcRequest,
    options: HttpRequestOptions | undefined,
  ): Promise<HttpReply> {
    return this.send(body, { headers: this.#requestHeaders(body, options?.headers) });
  }

  protected override async notify(method: string): Promise<void> {
    await this.send({ jsonrpc: '2.0', method });
  }

  protected override onInitialized(reply: HttpReply): void {
    const version = reply.result?.protocolVersion;
    this.#protocolVersion = typeof version === 'string' ? version : this.era;
    this.#sessionId = reply.headers['mcp-session-id'];
  }

  #sessionHeaders(): Record<string, string> {
    const headers: Record<string, string> = {};
    if (this.#protocolVersion !== undefined) headers['mcp-protocol-version'] = this.#protocolVersion;
    if (this.#sessionId !== undefined) headers['mcp-session-id'] = this.#sessionId;
    return headers;
  }

  #requestHeaders(body: JsonRpcRequest, extra: HeaderLayer): Record<string, string> {
    const standard = standardHeaders(this.era, body.method, body.params);
    return mergeHeaders(BASE_HEADERS, this.#headers, this.#sessionHeaders(), standard, extra);
  }
}
