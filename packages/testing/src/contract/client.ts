import { RawHttpClient } from '../httpClient.js';
import { isPlainObject } from '../internal/jsonRpc.js';
import { RawStdioClient } from '../stdioClient.js';
import type { JsonRpcError, JsonRpcId, McpEra, RawReply } from '../types.js';
import type { HostEndpoint } from './fixture.js';

/**
 * One reply as a check sees it, whatever the transport: an HTTP status (over
 * stdio derived from admission's JSON-RPC error), the tool result or JSON-RPC
 * error, and a transport failure when nothing usable came back.
 */
export interface ContractReply {
  readonly status: number;
  /** `Retry-After` (HTTP) or the admission error's `retry_after_seconds` (stdio). */
  readonly retryAfter: string | undefined;
  readonly result: Readonly<Record<string, unknown>> | undefined;
  readonly rpcError: JsonRpcError | undefined;
  /** Set when the request failed below JSON-RPC (network, timeout, process gone). */
  readonly failure: string | undefined;
}

/** Receives every `tools/call` reply a contract client sees (the I18/I19 ledger). */
export type ReplyListener = (tool: string, args: unknown, reply: ContractReply) => void;

/** Per-call options of a {@link ContractClient}. */
export interface ContractCallOptions {
  readonly id?: JsonRpcId;
  readonly headers?: Readonly<Record<string, string | undefined>>;
}

/** A raw client bound to one credential; ignores every annotation and hint. */
export interface ContractClient {
  call(tool: string, args: unknown, options?: ContractCallOptions): Promise<ContractReply>;
  list(options?: ContractCallOptions): Promise<ContractReply>;
  close(): Promise<void>;
}

/** How to reach a host: its endpoint, era and the reply listener. */
export interface ClientTarget {
  readonly endpoint: HostEndpoint;
  readonly era: McpEra;
  readonly listener?: ReplyListener | undefined;
}

/**
 * Opens a {@link ContractClient} for `token` (none: no credential) at
 * `target.endpoint`, e.g. an SDK client adapted to the contract's replies.
 * The kit records `tools/call` results for the I18/I19 checks itself; an
 * opener need not call `target.listener`.
 */
export type ClientOpener = (target: ClientTarget, token: string | undefined) => Promise<ContractClient>;

/** Statuses carried by admission's JSON-RPC errors over stdio. */
const GATE_STATUSES = new Set([401, 403, 503]);

/**
 * A stdio reply as the checks see it: admission's HTTP-like status and retry
 * hint read from the JSON-RPC error's `data` (200 when there is none).
 */
export function stdioReply(reply: Pick<RawReply, 'result' | 'error'>): ContractReply {
  const data = reply.error?.data;
  const status = isPlainObject(data) && GATE_STATUSES.has(Number(data.status)) ? Number(data.status) : 200;
  const retry = isPlainObject(data) ? data.retry_after_seconds : undefined;
  return {
    status,
    retryAfter: retry === undefined ? undefined : String(retry),
    result: reply.result,
    rpcError: reply.error,
    failure: undefined,
  };
}

const failed = (error: unknown): ContractReply => ({
  status: 0,
  retryAfter: undefined,
  result: undefined,
  rpcError: undefined,
  failure: error instanceof Error ? error.message : String(error),
});

function httpClient(target: ClientTarget, token: string | undefined, headers: Record<string, string>) {
  if (target.endpoint.transport !== 'http') throw new TypeError('not an HTTP endpoint');
  return new RawHttpClient({
    url: target.endpoint.url,
    era: target.era,
    headers: {
      ...target.endpoint.headers,
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...headers,
    },
  });
}

/** An HTTP reply as the checks see it: the status and `Retry-After` admission answered with. */
function httpReply(reply: Awaited<ReturnType<RawHttpClient['listTools']>>): ContractReply {
  return {
    status: reply.status,
    retryAfter: reply.headers['retry-after'],
    result: reply.result,
    rpcError: reply.error,
    failure: undefined,
  };
}

/** What both raw clients offer the contract client. */
interface RawSender<TReply> {
  callTool(name: string, args: unknown, options: ContractCallOptions): Promise<TReply>;
  listTools(options: ContractCallOptions): Promise<TReply>;
  close(): Promise<void>;
}

/** A contract client over a raw one: replies mapped by `toReply`, a thrown request as a failure. */
function contractClient<TReply>(
  raw: RawSender<TReply>,
  toReply: (reply: TReply) => ContractReply,
): ContractClient {
  const send = async (request: () => Promise<TReply>): Promise<ContractReply> => {
    try {
      return toReply(await request());
    } catch (error) {
      return failed(error);
    }
  };
  return {
    call: (tool, args, options = {}) => send(() => raw.callTool(tool, args, options)),
    list: (options = {}) => send(() => raw.listTools(options)),
    close: () => raw.close(),
  };
}

/** A raw stdio client for `token`: a started process, or a connection in this process. */
async function stdioClient(
  endpoint: Extract<HostEndpoint, { transport: 'stdio' }>,
  era: McpEra,
  token: string | undefined,
): Promise<RawStdioClient> {
  if ('connect' in endpoint) return RawStdioClient.connect(await endpoint.connect(token), { era });
  return RawStdioClient.spawn({
    command: endpoint.command,
    args: [...(endpoint.args ?? [])],
    era,
    env: { ...endpoint.env, [endpoint.tokenVariable]: token },
    ...(endpoint.cwd === undefined ? {} : { cwd: endpoint.cwd }),
  });
}

/**
 * Opens a client for `token` (none: no credential at all). Over HTTP,
 * `headers` replace or add request headers (`authorization`, `origin`,
 * `cookie`); over stdio they are ignored and a process is started (or a
 * server connected in this process, when the endpoint has `connect`).
 */
export async function openClient(
  target: ClientTarget,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<ContractClient> {
  const { endpoint } = target;
  const client =
    endpoint.transport === 'http'
      ? contractClient(httpClient(target, token, headers), httpReply)
      : contractClient(await stdioClient(endpoint, target.era, token), stdioReply);
  return listening(client, target.listener);
}

/** `client` with every `tools/call` reply that carries a result reported to `listener`. */
function listening(client: ContractClient, listener: ReplyListener | undefined): ContractClient {
  if (!listener) return client;
  return {
    async call(tool, args, options) {
      const reply = await client.call(tool, args, options);
      if (reply.result !== undefined) listener(tool, args, reply);
      return reply;
    },
    list: (options) => client.list(options),
    close: () => client.close(),
  };
}

/**
 * The client a check gets: the fixture's `opener` when it has one, the kit's
 * raw client ({@link openClient}) otherwise and for every request that sets
 * `headers` (the HTTP admission guards send credentials and origins no SDK client
 * would).
 */
export async function connectClient(
  opener: ClientOpener | undefined,
  target: ClientTarget,
  token: string | undefined,
  headers: Record<string, string> = {},
): Promise<ContractClient> {
  if (!opener || Object.keys(headers).length > 0) return openClient(target, token, headers);
  return listening(await opener({ endpoint: target.endpoint, era: target.era }, token), target.listener);
}
