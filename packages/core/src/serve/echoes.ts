import { isPlainObject, type Json } from '../json.js';
import { ECHO_LIMIT, echo } from '../text.js';

/** Most characters of an error's `data` as JSON once its strings are cut; larger data is left out. */
const DATA_LIMIT = 1_024;
/** Deepest nesting of `data` kept; anything deeper is left out. */
const DATA_DEPTH = 6;
const CAPPED = Symbol.for('gatehouse.cappedSend');

/** The answer to a request whose id is longer than a refusal may echo (id null: the id cannot be repeated). */
export const OVERSIZED_ID = `Invalid request: the id is longer than ${ECHO_LIMIT} characters; send a shorter string or a number.`;

/** Whether a JSON-RPC message's id is a string longer than {@link ECHO_LIMIT}, which no answer may repeat. */
export function hasOversizedId(message: Json): boolean {
  return isPlainObject(message) && typeof message.id === 'string' && message.id.length > ECHO_LIMIT;
}

/** `value` with every string and key cut by {@link echo}; the same object when nothing is cut, `undefined` when too deep. */
function clipDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return echo(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= DATA_DEPTH) return undefined;
  if (Array.isArray(value)) {
    const items = value.map((item) => clipDeep(item, depth + 1));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  let changed = false;
  const entries = Object.entries(value).map(([key, item]) => {
    const clipped = [echo(key), clipDeep(item, depth + 1)] as const;
    changed ||= clipped[0] !== key || clipped[1] !== item;
    return clipped;
  });
  return changed ? Object.fromEntries(entries) : value;
}

/**
 * A JSON-RPC error object with the caller's text cut, whoever wrote it (the
 * SDK repeats header values, protocol versions, method and tool names): the
 * message to {@link ECHO_LIMIT} characters in all, every string and key of
 * `data` to as many, and `data` left out when it is still larger than 1 KiB.
 * The same object when nothing needed cutting; `code` is never changed.
 */
export function capRpcError<T>(error: T): T {
  if (!isPlainObject(error as Json)) return error;
  const { message, data } = error as { message?: unknown; data?: unknown };
  const cutMessage = typeof message === 'string' ? echo(message) : message;
  let cutData = data === undefined ? undefined : clipDeep(data);
  if (cutData !== undefined && cutData !== data && JSON.stringify(cutData).length > DATA_LIMIT) {
    cutData = undefined;
  }
  if (cutMessage === message && cutData === data) return error;
  const { data: _dropped, ...rest } = error as Record<string, unknown>;
  return { ...rest, message: cutMessage, ...(cutData === undefined ? {} : { data: cutData }) } as T;
}

/** A JSON-RPC message with its `error` capped by {@link capRpcError}; the same object when nothing changes. */
export function capRpcMessage<T>(message: T): T {
  if (!isPlainObject(message as Json) || !('error' in (message as object))) return message;
  const { error } = message as { error: unknown };
  const capped = capRpcError(error);
  return capped === error ? message : ({ ...message, error: capped } as T);
}

/** A transport as far as capping needs it: SDK v1 and v2 transports alike. */
export interface CappableTransport {
  send(message: never, options?: never): Promise<void>;
}

/**
 * Caps every JSON-RPC error `transport` sends from now on (see
 * {@link capRpcError}), whoever sends it: the SDK's protocol layer, its
 * era checks, a handler. Results pass unchanged. A second call does nothing.
 */
export function capOutgoing(transport: CappableTransport): void {
  const marks = transport as unknown as Record<symbol, unknown>;
  if (marks[CAPPED]) return;
  marks[CAPPED] = true;
  const send = transport.send as unknown as (message: unknown, options?: unknown) => Promise<void>;
  (transport as { send: unknown }).send = function cappedSend(message: unknown, options?: unknown) {
    return send.call(transport, capRpcMessage(message), options);
  };
}

/**
 * An HTTP answer the SDK wrote itself (a non-2xx JSON-RPC error: header and
 * body disagree, unsupported protocol version, not acceptable, …) with its
 * error capped; any other response as it is. `error` is the capped error of
 * such an answer, for the refusal log.
 */
export async function capErrorResponse(
  response: Response,
): Promise<{ readonly response: Response; readonly error?: { readonly message?: unknown } }> {
  const type = response.headers.get('content-type') ?? '';
  if (response.ok || !type.toLowerCase().startsWith('application/json')) return { response };
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const error = isPlainObject(body as Json) ? (body as { error?: unknown }).error : undefined;
  if (!isPlainObject(error as Json)) return { response: rebuilt(response, text) };
  const capped = capRpcMessage(body);
  const answer = capped === body ? text : JSON.stringify(capped);
  return { response: rebuilt(response, answer), error: (capped as { error: { message?: unknown } }).error };
}

function rebuilt(response: Response, body: string): Response {
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
