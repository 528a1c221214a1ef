import { ConfigurationError } from '../errors.js';
import type { Json } from '../json.js';
import { isPlainObject } from '../json.js';
import { ECHO_LIMIT } from '../text.js';
import { hasOversizedId, OVERSIZED_ID } from './echoes.js';

/** Default most bytes of a request body read before it is refused with 413: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;

/** A `maxBodyBytes` option checked at configuration: a positive integer, default 1 MiB; `who` names the entry. */
export function byteLimit(value: number | undefined, who: string): number {
  const limit = value ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(limit) || limit <= 0) {
    throw new ConfigurationError(`${who}: maxBodyBytes must be a positive integer.`);
  }
  return limit;
}

/** A POST body read within its bound: parsed JSON, or why it cannot be served. */
export type ReadBody =
  | { readonly ok: true; readonly value: Json }
  | { readonly ok: false; readonly status: 400 | 413; readonly code: number; readonly message: string };

const TOO_LARGE = (limit: number): ReadBody => ({
  ok: false,
  status: 413,
  code: -32600,
  message: `The request body is larger than ${limit} bytes.`,
});

/** What the server's `onError` hears when a parser read a body before the handler could. */
export const BODY_READ_BEFORE =
  'The request body was read before the handler: a body parser (express.json(), a Fastify content-type parser, c.req.json()) runs ahead of this route. Mount the route before the parser or keep the parser off it; Gatehouse reads and limits the body itself.';

/**
 * Reads at most `limit` bytes as UTF-8; `undefined` when the body is larger
 * (reading stops there). A body something else already read (a framework's
 * `c.req.json()` ahead of the route) throws a `ConfigurationError` naming the fix.
 */
export async function boundedText(request: Request, limit: number): Promise<string | undefined> {
  if (request.bodyUsed) throw new ConfigurationError(BODY_READ_BEFORE);
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
}

/**
 * Reads a JSON-RPC POST body after the request is admitted: over `limit` bytes
 * is 413 before anything is parsed (a declared `Content-Length` is refused
 * without reading), malformed JSON is a parse error, and a JSON-RPC batch (an
 * array; batching left the protocol in 2025-06-18) is refused before any of
 * its requests runs.
 */
export async function readJsonBody(request: Request, limit: number): Promise<ReadBody> {
  return jsonBodyOf(await boundedText(request, limit), limit);
}

/** {@link readJsonBody} of a body already read within `limit` (`undefined`: it was larger). */
export function jsonBodyOf(text: string | undefined, limit: number): ReadBody {
  if (text === undefined) return TOO_LARGE(limit);
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return { ok: false, status: 400, code: -32700, message: 'Parse error: the body is not JSON.' };
  }
  if (Array.isArray(value))
    return { ok: false, status: 400, code: -32600, message: batchRefused('HTTP POST') };
  return { ok: true, value };
}

/** The answer to a JSON-RPC batch (an array; 2025-11-25 and later have no batching). */
export const batchRefused = (per: 'HTTP POST' | 'line'): string =>
  `JSON-RPC batches are not supported: send one request per ${per}.`;

/** The short answer to a `tools/call` whose params are malformed (the SDK would dump its validator's issues). */
export const MALFORMED_TOOLS_CALL =
  'Invalid params: tools/call takes params.name (a tool name, as in tools/list) and optionally params.arguments (an object).';

/**
 * Whether a JSON-RPC message is a `tools/call` whose params are not
 * `{ name: string, arguments?: object }`. Checked before the SDK sees it, so
 * the client gets one short sentence instead of a validator dump.
 */
export function isMalformedToolsCall(message: Json): boolean {
  if (!isPlainObject(message) || message.method !== 'tools/call') return false;
  const { params } = message;
  if (!isPlainObject(params) || typeof params.name !== 'string') return true;
  return params.arguments !== undefined && !isPlainObject(params.arguments);
}

/** A JSON-RPC error answer decided before the SDK sees a message; `id` is the request's, or null. */
export interface EdgeAnswer {
  readonly id: string | number | null;
  readonly code: number;
  readonly message: string;
}

/** The id of a JSON-RPC message when it is a valid one (a number, or a string an answer may repeat), else null. */
export function rpcIdOf(message: Json): string | number | null {
  if (!isPlainObject(message)) return null;
  const { id } = message;
  if (typeof id === 'number') return id;
  return typeof id === 'string' && id.length <= ECHO_LIMIT ? id : null;
}

/**
 * The protocol edges every transport answers itself, before the SDK sees a
 * parsed message: a batch (an array) and a message whose id is a string
 * longer than 200 characters (no answer may repeat it) are refused as
 * invalid requests with id null, and a `tools/call` with malformed params
 * gets {@link MALFORMED_TOOLS_CALL}. `undefined` when the message may go on.
 */
export function screenMessage(message: Json, per: 'HTTP POST' | 'line'): EdgeAnswer | undefined {
  if (Array.isArray(message)) return { id: null, code: -32600, message: batchRefused(per) };
  if (hasOversizedId(message)) return { id: null, code: -32600, message: OVERSIZED_ID };
  if (isMalformedToolsCall(message))
    return { id: rpcIdOf(message), code: -32602, message: MALFORMED_TOOLS_CALL };
  return undefined;
}
