import { stdioReply } from '../contract/client.js';
import { type HttpReply, RawHttpClient } from '../httpClient.js';
import type { HeaderLayer } from '../internal/httpExchange.js';
import { isResponse, parseJsonMessages, replyFor } from '../internal/jsonRpc.js';
import { RawStdioClient } from '../stdioClient.js';
import type { JsonRpcId, McpEra, RawReply } from '../types.js';
import type { Exchange } from './exchange.js';

/** Where the scanned server answers. */
export type ScanEndpoint =
  | {
      readonly transport: 'http';
      readonly url: URL;
      /** The credential headers given (`authorization` from `--token`, or `--header`s). */
      readonly credential: Readonly<Record<string, string>>;
    }
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly cwd?: string;
      readonly env?: Readonly<Record<string, string>>;
    };

/** Which credential a session sends: the one given, none, or these headers instead. */
export type SessionAuth =
  | 'given'
  | 'none'
  | { readonly label: string; readonly headers: Readonly<Record<string, string>> };

/** Per-request options of a session. */
export interface SessionRequestOptions {
  /** Headers merged last (HTTP); one set to `undefined` is not sent. */
  readonly headers?: HeaderLayer;
  readonly id?: JsonRpcId;
  readonly meta?: Readonly<Record<string, unknown>>;
  /** Words appended to the request's description, e.g. `with Origin https://evil.example`. */
  readonly note?: string;
}

const authLabel = (auth: SessionAuth): string =>
  auth === 'given' ? '' : auth === 'none' ? ' [no credential]' : ` [${auth.label}]`;

const summarize = (value: unknown, max = 160): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
};

/** A request's description: method, tool and arguments, notes, the credential sent. */
export function describeRequest(method: string, params: unknown, auth: SessionAuth, note?: string): string {
  const record = (params ?? {}) as Record<string, unknown>;
  const what =
    method === 'tools/call' && typeof record.name === 'string'
      ? `tools/call ${record.name} ${summarize(record.arguments ?? {})}`
      : method;
  return `${what}${note ? ` ${note}` : ''}${authLabel(auth)}`;
}

function httpExchange(request: string, reply: HttpReply, started: number): Exchange {
  return {
    request,
    status: reply.status,
    headers: reply.headers,
    text: reply.text,
    messages: reply.messages,
    result: reply.result,
    error: reply.error,
    failure: undefined,
    ms: Date.now() - started,
  };
}

function stdioExchange(request: string, reply: RawReply, started: number): Exchange {
  const seen = stdioReply(reply);
  return {
    request,
    status: seen.status,
    headers: {},
    text: reply.response === undefined ? '' : JSON.stringify(reply.response),
    messages: reply.response === undefined ? [] : [reply.response],
    result: reply.result,
    error: reply.error,
    failure: undefined,
    ms: Date.now() - started,
  };
}

const failed = (request: string, error: unknown, started: number): Exchange => ({
  request,
  status: 0,
  headers: {},
  text: '',
  messages: [],
  result: undefined,
  error: undefined,
  failure: error instanceof Error ? error.message : String(error),
  ms: Date.now() - started,
});

/**
 * One client of the scanned server in one era with one credential, built on
 * the kit's raw clients (they send exactly what they are told and ignore
 * every hint). Nothing throws: a network failure, a timeout or a process that
 * ended comes back as an {@link Exchange} with `failure` set.
 */
export class ScanSession {
  readonly era: McpEra;
  readonly #auth: SessionAuth;
  readonly #client: RawHttpClient | RawStdioClient;

  private constructor(era: McpEra, auth: SessionAuth, client: RawHttpClient | RawStdioClient) {
    this.era = era;
    this.#auth = auth;
    this.#client = client;
  }

  /** Opens a session: an HTTP client (nothing sent yet) or a started stdio process. */
  static async open(
    endpoint: ScanEndpoint,
    era: McpEra,
    auth: SessionAuth,
    timeoutMs: number,
  ): Promise<ScanSession> {
    if (endpoint.transport === 'http') {
      const headers = auth === 'given' ? endpoint.credential : auth === 'none' ? {} : auth.headers;
      const client = new RawHttpClient({
        url: endpoint.url,
        era,
        headers: { ...headers },
        timeoutMs,
        clientInfo,
      });
      return new ScanSession(era, auth, client);
    }
    const client = await RawStdioClient.spawn({
      command: endpoint.command,
      args: [...endpoint.args],
      era,
      timeoutMs,
      clientInfo,
      ...(endpoint.cwd === undefined ? {} : { cwd: endpoint.cwd }),
      ...(endpoint.env === undefined ? {} : { env: endpoint.env }),
    });
    return new ScanSession(era, auth, client);
  }

  /** Sends one request with the era's envelope (in 2025-11-25 after the handshake). */
  async request(
    method: string,
    params: Readonly<Record<string, unknown>> = {},
    options: SessionRequestOptions = {},
  ): Promise<Exchange> {
    const request = describeRequest(method, params, this.#auth, options.note);
    const started = Date.now();
    try {
      if (this.#client instanceof RawHttpClient) {
        return httpExchange(request, await this.#client.request(method, params, options), started);
      }
      return stdioExchange(request, await this.#client.request(method, params, options), started);
    } catch (error) {
      return failed(request, error, started);
    }
  }

  /** Runs the 2025-11-25 handshake (once); in 2026-07-28 sends `server/discover`. */
  async hello(): Promise<Exchange> {
    if (this.era === '2026-07-28') return this.request('server/discover');
    const request = `initialize${authLabel(this.#auth)}`;
    const started = Date.now();
    try {
      const reply = await this.#client.initialize();
      return this.#client instanceof RawHttpClient
        ? httpExchange(request, reply as HttpReply, started)
        : stdioExchange(request, reply, started);
    } catch (error) {
      return failed(request, error, started);
    }
  }

  /**
   * The request `request` would send (the era's envelope, a fresh id) and,
   * over HTTP, its exact headers (the 2026-07-28 standard headers included),
   * to alter and pass to {@link ScanSession.raw}.
   */
  prepare(
    method: string,
    params: Readonly<Record<string, unknown>> = {},
    options: SessionRequestOptions = {},
  ) {
    if (this.#client instanceof RawHttpClient) return this.#client.prepare(method, params, options);
    return {
      body: this.#client.buildRequest(method, params, options),
      headers: {} as Record<string, string>,
    };
  }

  /**
   * Sends `body` as it is (or `rawText`, e.g. malformed JSON) with `headers`
   * (HTTP; take them from {@link ScanSession.prepare}). The handshake runs
   * first in the 2025-11-25 era. Answers the response to the id in the body,
   * or else the first response that came back; over stdio it waits at most
   * `waitMs` (default the session's timeout) for a line that may get no answer.
   */
  async raw(
    request: string,
    body: unknown,
    options: { readonly rawText?: string; readonly headers?: HeaderLayer; readonly waitMs?: number } = {},
  ): Promise<Exchange> {
    const described = `${request}${authLabel(this.#auth)}`;
    const started = Date.now();
    try {
      if (this.era === '2025-11-25') await this.#client.initialize();
      if (this.#client instanceof RawHttpClient) {
        const sent = {
          ...(options.headers === undefined ? {} : { headers: options.headers }),
          ...(options.rawText === undefined ? {} : { rawBody: options.rawText }),
        };
        return httpExchange(described, await this.#client.send(body, sent), started);
      }
      const line = options.rawText ?? JSON.stringify(body);
      return stdioExchange(described, await this.#stdioRaw(line, options.waitMs), started);
    } catch (error) {
      return failed(described, error, started);
    }
  }

  /** Writes one line and waits (at most `waitMs`) for the first response that arrives after it. */
  async #stdioRaw(line: string, waitMs: number | undefined): Promise<RawReply> {
    const client = this.#client as RawStdioClient;
    const before = client.messages.length;
    const parsed = parseJsonMessages(line);
    const id = parsed.length === 1 ? (parsed[0]?.id as JsonRpcId | undefined) : undefined;
    const arrived = client.waitForMessage(
      (m) => client.messages.indexOf(m) >= before && isResponse(m),
      waitMs,
    );
    await client.send(undefined, { rawLine: line, awaitResponse: false });
    const response = await arrived;
    return replyFor(id, isResponse(response) ? response : undefined);
  }

  /** Whether a stdio server process is still running (HTTP: always true). */
  get alive(): boolean {
    return this.#client instanceof RawHttpClient || this.#client.exit === undefined;
  }

  /** Ends a 2025-11-25 HTTP session, or stops the stdio process. */
  async close(): Promise<void> {
    await this.#client.close().catch(() => undefined);
  }
}

/** How the scan introduces itself to servers. */
const clientInfo = { name: 'gatehouse-scan', version: '0.1.0' };
