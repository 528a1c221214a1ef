import type { ClientInfo, McpEra } from '../types.js';
import { isPlainObject } from './jsonRpc.js';

/**
 * The `_meta` keys a 2026-07-28 request carries instead of a handshake (protocol version, client
 * info, client capabilities). Read a server's view of them, or drop one with `meta: { [key]: undefined }`.
 */
export const MCP_META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
} as const;

/** The 2026-07-28 methods whose `Mcp-Name` header mirrors a field of `params`. */
const NAME_SOURCE = new Map<string, string>([
  ['tools/call', 'name'],
  ['prompts/get', 'name'],
  ['resources/read', 'uri'],
  ['tasks/get', 'taskId'],
  ['tasks/update', 'taskId'],
  ['tasks/cancel', 'taskId'],
]);

/** What the era envelope is built from. */
export interface EnvelopeMaterial {
  readonly era: McpEra;
  readonly clientInfo: ClientInfo;
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/**
 * `params` with the era's `_meta` envelope: in 2026-07-28 the protocol version, client info and
 * capabilities, then `params._meta`, then `extra`. A `params._meta` that is not an object is sent
 * untouched, since the test asked for exactly that.
 */
export function withEnvelope(
  material: EnvelopeMaterial,
  params: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> {
  const own = params._meta;
  if (own !== undefined && !isPlainObject(own)) return params;
  const base =
    material.era === '2026-07-28'
      ? {
          [MCP_META_KEYS.protocolVersion]: material.era,
          [MCP_META_KEYS.clientInfo]: material.clientInfo,
          [MCP_META_KEYS.clientCapabilities]: material.capabilities,
        }
      : {};
  const meta = { ...base, ...own, ...extra };
  return Object.keys(meta).length === 0 ? params : { ...params, _meta: meta };
}

/**
 * A string as an HTTP field value: plain when it is safe printable ASCII, otherwise (or when it
 * already looks like the sentinel) wrapped as `=?base64?…?=` of its UTF-8 bytes.
 */
export function encodeHeaderValue(value: string): string {
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=');
  const safe = value.length > 0 && value === value.trim() && /^[\t\x20-\x7e]*$/.test(value);
  return safe && !sentinel ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/**
 * The standard request headers of the 2026-07-28 Streamable HTTP binding for one request:
 * `mcp-protocol-version`, `mcp-method`, and `mcp-name` when the method mirrors a string param.
 * The 2025-11-25 era has none.
 */
export function standardHeaders(
  era: McpEra,
  method: string,
  params: Readonly<Record<string, unknown>>,
): Record<string, string> {
  if (era !== '2026-07-28') return {};
  const headers: Record<string, string> = { 'mcp-protocol-version': era, 'mcp-method': method };
  const field = NAME_SOURCE.get(method);
  const value = field === undefined ? undefined : params[field];
  if (typeof value === 'string') headers['mcp-name'] = encodeHeaderValue(value);
  return headers;
}
