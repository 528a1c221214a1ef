import type { JsonRpcError, JsonRpcId, JsonRpcMessage, JsonRpcResponse, RawReply } from '../types.js';

/** True for a non-null, non-array object. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** True for a value JSON-RPC accepts as an id. */
export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || typeof value === 'number';
}

/** The objects in one parsed JSON value: the value itself, or the objects of a batch array. */
export function messagesIn(value: unknown): JsonRpcMessage[] {
  const items = Array.isArray(value) ? value : [value];
  return items.filter(isPlainObject);
}

/** Parses `text` as JSON and returns its messages; text that is not JSON yields none. */
export function parseJsonMessages(text: string): JsonRpcMessage[] {
  if (text.trim() === '') return [];
  try {
    return messagesIn(JSON.parse(text));
  } catch {
    return [];
  }
}

/** True for a response: an object with an `id` and a `result` or `error`, and no `method`. */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  if (!('id' in message) || 'method' in message) return false;
  if (message.id !== null && !isJsonRpcId(message.id)) return false;
  return 'result' in message || 'error' in message;
}

/** A request body as an object: JSON text parsed, anything else as it is; text that is not JSON: `undefined`. */
export function bodyValue(body: unknown): unknown {
  if (typeof body !== 'string') return body;
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The id a request body carries, read from an object or from JSON text. */
export function requestIdOf(body: unknown): JsonRpcId | undefined {
  const value = bodyValue(body);
  return isPlainObject(value) && isJsonRpcId(value.id) ? value.id : undefined;
}

/** The response for `id`; failing that, a response with a null id (an error the server could not attribute). */
export function findResponse(
  messages: readonly JsonRpcMessage[],
  id: JsonRpcId | undefined,
): JsonRpcResponse | undefined {
  const responses = messages.filter(isResponse);
  const matching = id === undefined ? undefined : responses.find((message) => message.id === id);
  return matching ?? responses.find((message) => message.id === null);
}

function asError(value: unknown): JsonRpcError | undefined {
  if (!isPlainObject(value) || typeof value.code !== 'number' || typeof value.message !== 'string') {
    return undefined;
  }
  return value as unknown as JsonRpcError;
}

/** Builds the reply fields shared by every transport. */
export function replyFor(id: JsonRpcId | undefined, response: JsonRpcResponse | undefined): RawReply {
  return {
    id,
    response,
    result: isPlainObject(response?.result) ? response.result : undefined,
    error: asError(response?.error),
  };
}
