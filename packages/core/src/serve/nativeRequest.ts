import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
} from '@modelcontextprotocol/server';
import { isPlainObject, type Json, type JsonObject } from '../json.js';

/** The one protocol revision the native path serves. */
export const NATIVE_REVISION = '2026-07-28';

/** A request the native path answers, taken apart. */
export type NativeRequest =
  | { readonly method: 'server/discover'; readonly id: string | number }
  | {
      readonly method: 'tools/list';
      readonly id: string | number;
      /** `_meta` without the envelope: trace context only. */
      readonly meta: Readonly<Record<string, unknown>> | undefined;
      readonly capabilities: ClientCapabilities;
    }
  | ({ readonly method: 'tools/call' } & NativeCall);

/** A `tools/call` taken apart. */
export interface NativeCall {
  readonly id: string | number;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly capabilities: ClientCapabilities;
  readonly name: string;
  readonly arguments: JsonObject | undefined;
  readonly requestState: string | undefined;
  readonly inputResponses: Readonly<Record<string, JsonObject>> | undefined;
}

/** The headers the native path reads, by lower-case name. */
export type HeaderOf = (name: string) => string | null | undefined;

const KNOWN_PARAMS = {
  'server/discover': new Set(['_meta']),
  'tools/list': new Set(['_meta']),
  'tools/call': new Set(['_meta', 'name', 'arguments', 'requestState', 'inputResponses']),
} as const;
/** `_meta` keys besides the envelope that change nothing the SDK answers: W3C trace context. */
const TRACE_KEYS = new Set(['traceparent', 'tracestate']);
const ENVELOPE_KEYS = new Set<string>([
  PROTOCOL_VERSION_META_KEY,
  CLIENT_INFO_META_KEY,
  CLIENT_CAPABILITIES_META_KEY,
]);
const CLIENT_INFO_KEYS = new Set(['name', 'version', 'title']);
const CAPABILITY_KEYS = new Set(['elicitation', 'sampling', 'roots', 'experimental', 'extensions']);
const ELICITATION_KEYS = new Set(['form', 'url']);

const onlyKeys = (value: JsonObject, allowed: ReadonlySet<string>): boolean =>
  Object.keys(value).every((key) => allowed.has(key));

/**
 * A single 2026-07-28 `server/discover`, `tools/list` or `tools/call`
 * request that the native path can answer exactly as the SDK would, taken
 * apart; `undefined` for anything else, so the SDK answers it (its own
 * validation, its own error bytes). Accepted only: a JSON content type; a
 * JSON-RPC 2.0 request with a string or safe-integer id; params of those
 * methods and nothing more (no cursor, no progress token, no log level);
 * the envelope present and plain (protocol version 2026-07-28, client info
 * of string name and version, capabilities of known plain objects); for
 * `tools/call`, arguments without an own `__proto__` key; the
 * `MCP-Protocol-Version`, `Mcp-Method` (and for `tools/call`, `Mcp-Name`)
 * headers present and equal, byte for byte, to the body.
 */
export function nativeRequest(header: HeaderOf, body: Json | undefined): NativeRequest | undefined {
  if (!isJsonContentType(header('content-type') ?? null)) return undefined;
  if (!isPlainObject(body) || body.jsonrpc !== '2.0' || !onlyKeys(body, RPC_KEYS)) return undefined;
  const { id, method, params } = body;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  if (method !== 'server/discover' && method !== 'tools/list' && method !== 'tools/call') return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, KNOWN_PARAMS[method])) return undefined;
  if (header('mcp-protocol-version') !== NATIVE_REVISION || header('mcp-method') !== method) return undefined;
  const envelope = envelopeOf(params._meta);
  if (!envelope) return undefined;
  if (method === 'server/discover') return { method, id };
  if (method === 'tools/list')
    return { method, id, meta: envelope.rest, capabilities: envelope.capabilities };
  const call = callOf(header, params);
  if (!call) return undefined;
  return { method, id, meta: envelope.rest, capabilities: envelope.capabilities, ...call };
}

const RPC_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** The envelope when it is plain and names 2026-07-28, with the trace keys beside it; otherwise nothing. */
function envelopeOf(
  meta: Json | undefined,
):
  | { readonly capabilities: ClientCapabilities; readonly rest: Record<string, unknown> | undefined }
  | undefined {
  if (!isPlainObject(meta)) return undefined;
  let rest: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(meta)) {
    if (ENVELOPE_KEYS.has(key)) continue;
    if (!TRACE_KEYS.has(key) || typeof value !== 'string') return undefined;
    rest ??= {};
    rest[key] = value;
  }
  if (meta[PROTOCOL_VERSION_META_KEY] !== NATIVE_REVISION) return undefined;
  const info = meta[CLIENT_INFO_META_KEY];
  if (!isPlainObject(info) || !onlyKeys(info, CLIENT_INFO_KEYS)) return undefined;
  if (typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
  if (info.title !== undefined && typeof info.title !== 'string') return undefined;
  const capabilities = meta[CLIENT_CAPABILITIES_META_KEY];
  if (!isPlainObject(capabilities) || !onlyKeys(capabilities, CAPABILITY_KEYS)) return undefined;
  if (!Object.values(capabilities).every((value) => isPlainObject(value))) return undefined;
  const { elicitation } = capabilities;
  if (elicitation !== undefined) {
    if (!isPlainObject(elicitation) || !onlyKeys(elicitation, ELICITATION_KEYS)) return undefined;
    if (!Object.values(elicitation).every((value) => isPlainObject(value))) return undefined;
  }
  return { capabilities: capabilities as ClientCapabilities, rest };
}

/**
 * A `tools/call`'s own params when the `Mcp-Name` header names the tool
 * exactly, plain retry material only. Arguments holding an own `__proto__`
 * key are the SDK's: its parse of the arguments drops that key.
 */
function callOf(
  header: HeaderOf,
  params: JsonObject,
): Omit<NativeCall, 'id' | 'meta' | 'capabilities'> | undefined {
  const { name, arguments: args, requestState, inputResponses } = params;
  if (typeof name !== 'string' || name.length === 0 || name.startsWith('=?')) return undefined;
  if (header('mcp-name') !== name) return undefined;
  if (args !== undefined && (!isPlainObject(args) || Object.hasOwn(args, '__proto__'))) return undefined;
  if (requestState !== undefined && typeof requestState !== 'string') return undefined;
  if (inputResponses !== undefined) {
    if (!isPlainObject(inputResponses)) return undefined;
    for (const entry of Object.values(inputResponses))
      if (!isPlainObject(entry) || 'method' in entry || 'result' in entry) return undefined;
  }
  return {
    name,
    arguments: args,
    requestState,
    inputResponses: inputResponses as Record<string, JsonObject> | undefined,
  };
}
