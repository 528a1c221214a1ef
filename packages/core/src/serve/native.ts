import { type ClientCapabilities, ProtocolError, SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { Connection } from '../context.js';
import { isPlainObject, type Json } from '../json.js';
import { capRpcError } from './echoes.js';
import { type HeaderOf, NATIVE_REVISION, type NativeRequest, nativeRequest } from './nativeRequest.js';
import type { Report } from './report.js';
import { internalProtocolError, type RequestView, type ToolHandlers } from './toolHandlers.js';

/** What the native path needs of one admitted HTTP POST. */
export interface NativeExchange {
  readonly header: HeaderOf;
  readonly signal: AbortSignal;
}

/** Answers an admitted POST it fully understands with the JSON to send (HTTP 200); `undefined` hands it to the SDK unchanged. */
export type NativeServing<TRight extends string> = (
  exchange: NativeExchange,
  body: Json | undefined,
  connection: Connection<TRight>,
) => Promise<string | undefined>;

/** Server identity and capabilities as the SDK's `Server` states them. */
interface Identity {
  readonly name: string;
  readonly version: string;
}

/**
 * Gatehouse's own answer to stateless 2026-07-28 `server/discover`,
 * `tools/list` and `tools/call` over HTTP, after admission, on the same
 * handlers as the SDK's `Server` (`toolHandlers`): no per-request SDK
 * server. It takes only what `nativeRequest` accepts, a request it can
 * answer byte for byte as the SDK would, and writes the SDK's answer:
 * `{result, jsonrpc, id}` with `resultType`, the cache fields of a
 * `server/discover` and `tools/list` result and the server's identity in
 * `_meta`; a handler's JSON-RPC error as the SDK sends it (HTTP 200,
 * capped caller text). Anything else, every validation failure included,
 * falls through, so the SDK writes its own error bytes.
 */
export function nativeServing<TRight extends string>(
  info: Identity,
  handlers: ToolHandlers<TRight>,
  report: Report,
): NativeServing<TRight> {
  const serverInfo = { name: info.name, version: info.version };
  /** A `server/discover` or `tools/list` result as the SDK completes it: its fields, then the cache fields and identity. */
  const cacheable = (fields: object) => ({
    ...fields,
    resultType: 'complete',
    ttlMs: 0,
    cacheScope: 'private',
    _meta: { [SERVER_INFO_META_KEY]: serverInfo },
  });
  const discovered = (id: string | number) =>
    resultBody(id, cacheable({ supportedVersions: [NATIVE_REVISION], capabilities: { tools: {} } }));

  const answer = async (
    request: Exclude<NativeRequest, { method: 'server/discover' }>,
    exchange: NativeExchange,
    connection: Connection<TRight>,
  ): Promise<string> => {
    const view: RequestView = {
      id: request.id,
      meta: request.meta,
      protocolVersion: NATIVE_REVISION,
      capabilities: () => request.capabilities as ClientCapabilities,
      requestState: request.method === 'tools/call' ? request.requestState : undefined,
      inputResponses: request.method === 'tools/call' ? request.inputResponses : undefined,
      signal: exchange.signal,
    };
    const who = async () => connection;
    try {
      if (request.method === 'tools/list') {
        return resultBody(request.id, cacheable(await handlers.list(view, who)));
      }
      const result = await handlers.call(view, who, request.name, request.arguments);
      return resultBody(request.id, stamped(result as unknown as Record<string, unknown>, serverInfo));
    } catch (error) {
      return errorBody(request.id, error instanceof ProtocolError ? error : internalProtocolError());
    }
  };

  return async (exchange, body, connection) => {
    const request = nativeRequest(exchange.header, body);
    if (!request) return undefined;
    let text: string;
    try {
      text =
        request.method === 'server/discover'
          ? discovered(request.id)
          : await answer(request, exchange, connection);
    } catch (error) {
      // an answer that cannot be written (a result JSON cannot hold): the SDK's encode failure
      report(error);
      text = errorBody(request.id, internalProtocolError());
    }
    return text;
  };
}

/** A result response as the SDK's protocol layer writes it: `result`, `jsonrpc`, `id`. */
const resultBody = (id: string | number, result: object): string =>
  `{"result":${JSON.stringify(result)},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;

/**
 * The SDK's encoding of a `tools/call` result on 2026-07-28: `resultType`
 * `complete` unless the handler named one (`input_required`), and the
 * server's identity in `_meta` unless the result names its own or holds a
 * `_meta` that is no object.
 */
function stamped(result: Record<string, unknown>, serverInfo: Identity): Record<string, unknown> {
  const typed = result.resultType === undefined ? { ...result, resultType: 'complete' } : result;
  const meta = typed._meta;
  if (meta === undefined) return { ...typed, _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (!isPlainObject(meta as Json) || (meta as Record<string, unknown>)[SERVER_INFO_META_KEY] !== undefined)
    return typed;
  return { ...typed, _meta: { ...(meta as object), [SERVER_INFO_META_KEY]: serverInfo } };
}

/**
 * A handler's JSON-RPC error as the SDK's protocol layer sends it: `jsonrpc`,
 * `id`, then the error (its -32002 written -32602, as the 2026 codec does),
 * the caller's text capped (the SDK path caps every error it sends).
 */
function errorBody(id: string | number, error: ProtocolError): string {
  const code = error.code === -32002 ? -32602 : error.code;
  const capped = capRpcError({
    code,
    message: error.message ?? 'Internal error',
    ...(error.data !== undefined ? { data: error.data } : {}),
  });
  return JSON.stringify({ jsonrpc: '2.0', id, error: capped });
}
