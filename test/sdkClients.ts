/**
 * The official SDK clients as contract-suite clients: the SDK v1 `Client`
 * and the SDK v2 `Client` pinned to the 2025 protocol revisions (legacy
 * version negotiation), over Streamable HTTP or stdio (a process, or an
 * in-process server over a pair of streams). Each credential gets
 * its own connected client, as a real agent would. The SDK speaks for
 * itself (handshake, ids, session header, result validation against the
 * listed output schemas); what the gate answered over HTTP (status,
 * `Retry-After`, the JSON-RPC error in the body) is read from the responses
 * the client's `fetch` received.
 */
import type { JsonObject } from '@gatehousejs/core';
import type {
  ClientOpener,
  ClientTarget,
  ContractClient,
  ContractReply,
  HostEndpoint,
  StdioConnection,
} from '@gatehousejs/testing';
import { stdioReply } from '@gatehousejs/testing';
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpTransport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport as V2StdioTransport } from '@modelcontextprotocol/client/stdio';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as V1StdioTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as V1HttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Which SDK client: v1, or v2 negotiating only the 2025 revisions. */
export type SdkClientKind = 'v1' | 'v2-legacy';

/** The request timeout of every SDK call, as the kit's raw client uses. */
const TIMEOUT_MS = 10_000;

/** What both SDK clients offer, reduced to what a contract client uses. */
interface SdkClient {
  connect(transport: never): Promise<void>;
  listTools(params?: undefined, options?: { timeout: number }): Promise<unknown>;
  callTool(
    params: { name: string; arguments: JsonObject },
    resultSchema?: undefined,
    options?: { timeout: number },
  ): Promise<unknown>;
  close(): Promise<void>;
}

/** What an HTTP response the client received said, when it was not a success. */
interface Refusal {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

function newClient(kind: SdkClientKind): SdkClient {
  const info = { name: `contract-${kind}`, version: '1.0.0' };
  const client =
    kind === 'v1' ? new V1Client(info) : new V2Client(info, { versionNegotiation: { mode: 'legacy' } });
  return client as unknown as SdkClient;
}

/** A stdio endpoint that starts a process per credential. */
type SpawnedEndpoint = Extract<HostEndpoint, { transport: 'stdio'; command: string }>;

/** The child's environment: ours, the endpoint's, and the token (none: the variable unset). */
function stdioEnv(endpoint: SpawnedEndpoint, token: string | undefined) {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...endpoint.env })) {
    if (value !== undefined && name !== endpoint.tokenVariable) env[name] = value;
  }
  if (token !== undefined) env[endpoint.tokenVariable] = token;
  return env;
}

/** A JSON-RPC error as the SDKs throw it (`McpError`, `ProtocolError`): a negative code, the server's data. */
function rpcErrorOf(error: unknown) {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message, data } = error as { code?: unknown; message?: unknown; data?: unknown };
  if (typeof code !== 'number' || code >= 0) return undefined;
  const text = String(message ?? '').replace(/^MCP error -?\d+: /, '');
  return { code, message: text, ...(data === undefined ? {} : { data }) };
}

const failure = (error: unknown, detail = ''): ContractReply => ({
  status: 0,
  retryAfter: undefined,
  result: undefined,
  rpcError: undefined,
  failure: `${error instanceof Error ? error.message : String(error)}${detail}`,
});

/** The JSON-RPC error a refused HTTP response carried in its body, if it was one. */
function bodyError(body: string) {
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const error = parsed.error;
    if (typeof error?.code !== 'number') return undefined;
    return {
      code: error.code,
      message: String(error.message ?? ''),
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  } catch {
    return undefined;
  }
}

/**
 * The SDK's stdio framing (one JSON-RPC message per line) over an in-process
 * server's streams, as `StdioClientTransport` speaks it to a child's pipes.
 */
class StreamPairTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #buffer = new ReadBuffer();
  #connection: Promise<StdioConnection>;
  #closed = false;

  constructor(connection: Promise<StdioConnection>) {
    this.#connection = connection;
  }

  async start(): Promise<void> {
    const { output } = await this.#connection;
    output.on('data', (chunk: Buffer) => {
      this.#buffer.append(chunk);
      this.#drain();
    });
  }

  #drain(): void {
    for (;;) {
      try {
        const message = this.#buffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const { input } = await this.#connection;
    input.write(serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const connection = await this.#connection;
    connection.input.end();
    await connection.close();
    this.onclose?.();
  }
}

/** One transport for `endpoint`, plus what it tells about refusals and a dead process. */
function transportFor(kind: SdkClientKind, endpoint: HostEndpoint, token: string | undefined) {
  let refusal: Refusal | undefined;
  let stderr = '';
  if (endpoint.transport === 'stdio' && 'connect' in endpoint) {
    const transport = new StreamPairTransport(endpoint.connect(token));
    return { transport, refusal: () => undefined, stderr: () => '', clear: () => undefined };
  }
  if (endpoint.transport === 'stdio') {
    const parameters = {
      command: endpoint.command,
      args: [...(endpoint.args ?? [])],
      env: stdioEnv(endpoint, token),
      stderr: 'pipe' as const,
      ...(endpoint.cwd === undefined ? {} : { cwd: endpoint.cwd }),
    };
    const transport = kind === 'v1' ? new V1StdioTransport(parameters) : new V2StdioTransport(parameters);
    transport.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    return { transport, refusal: () => undefined, stderr: () => stderr, clear: () => undefined };
  }
  const capture = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    // only the POSTs carry requests; a refused GET (a stateless server has no SSE stream) is not an answer
    if (!response.ok && init?.method === 'POST') {
      const body = await response.clone().text();
      refusal = {
        status: response.status,
        retryAfter: response.headers.get('retry-after') ?? undefined,
        body,
      };
    }
    return response;
  };
  const options = {
    fetch: capture,
    requestInit: {
      headers: { ...endpoint.headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
    },
  };
  const url = new URL(endpoint.url);
  const transport = kind === 'v1' ? new V1HttpTransport(url, options) : new V2HttpTransport(url, options);
  return {
    transport,
    refusal: () => refusal,
    stderr: () => '',
    clear: () => {
      refusal = undefined;
    },
  };
}

/** A client and its transport, connected or refused. */
interface Connection {
  readonly client: SdkClient;
  readonly carrier: ReturnType<typeof transportFor>;
  /** What `connect()` threw, if it failed (e.g. the gate refused the handshake). */
  readonly refused: unknown;
}

async function connect(kind: SdkClientKind, target: ClientTarget, token: string | undefined) {
  const client = newClient(kind);
  const carrier = transportFor(kind, target.endpoint, token);
  try {
    await client.connect(carrier.transport as never);
    return { client, carrier, refused: undefined };
  } catch (error) {
    return { client, carrier, refused: error ?? new Error('connect failed') };
  }
}

/** The reply for what a request (or the handshake before it) threw. */
function replyForError(error: unknown, carrier: Connection['carrier']): ContractReply {
  const refused = carrier.refusal();
  if (refused) {
    return {
      status: refused.status,
      retryAfter: refused.retryAfter,
      result: undefined,
      rpcError: bodyError(refused.body),
      failure: undefined,
    };
  }
  const rpcError = rpcErrorOf(error);
  if (rpcError) return stdioReply({ result: undefined, error: rpcError });
  const tail = carrier.stderr();
  return failure(error, tail ? `; stderr: ${tail}` : '');
}

/**
 * Opens an SDK client of `kind` for one credential. A refused handshake is
 * the reply to the request that needed it, and the next request connects
 * afresh (a switch turned off again lets the same credential in). Requests
 * go out one at a time per client (no contract check sends concurrently on
 * one client), so each reply is matched with the HTTP response behind it.
 */
async function openSdkClient(
  kind: SdkClientKind,
  target: ClientTarget,
  token: string | undefined,
): Promise<ContractClient> {
  let current: Connection | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const run = async (request: (client: SdkClient) => Promise<unknown>): Promise<ContractReply> => {
    if (current?.refused !== undefined) await current.client.close().catch(() => undefined);
    if (current === undefined || current.refused !== undefined) current = await connect(kind, target, token);
    const { client, carrier, refused } = current;
    if (refused !== undefined) return replyForError(refused, carrier);
    carrier.clear();
    try {
      const result = (await request(client)) as Record<string, unknown>;
      return { status: 200, retryAfter: undefined, result, rpcError: undefined, failure: undefined };
    } catch (error) {
      return replyForError(error, carrier);
    }
  };
  const send = (request: (client: SdkClient) => Promise<unknown>): Promise<ContractReply> => {
    const reply = queue.then(
      () => run(request),
      () => run(request),
    );
    queue = reply;
    return reply;
  };

  return {
    call: (tool, args) =>
      send((client) =>
        client.callTool({ name: tool, arguments: args as JsonObject }, undefined, { timeout: TIMEOUT_MS }),
      ),
    list: () => send((client) => client.listTools(undefined, { timeout: TIMEOUT_MS })),
    async close() {
      await queue.catch(() => undefined);
      await current?.client.close().catch(() => undefined);
    },
  };
}

/** A {@link ClientOpener} for the contract suite that connects the SDK client of `kind`. */
export const sdkClient =
  (kind: SdkClientKind): ClientOpener =>
  (target, token) =>
    openSdkClient(kind, target, token);
