import type { AdmissionRefusal } from '../context.js';
import type { JsonObject } from '../json.js';
import { ADMISSION_RPC_CODES, admissionErrorData, INTERNAL_RPC_ERROR } from './refusal.js';

export { CONNECTION_KEY } from './refusal.js';

const RPC_ERROR = Symbol.for('gatehouse.V1RpcError');

/**
 * A JSON-RPC error an SDK v1 handler throws on purpose. The SDK sends a
 * thrown error's `code`, `message` and `data` as they are, so the message is
 * the bare text (the SDK's own `McpError` prefixes it with its code).
 */
export class V1RpcError extends Error {
  readonly [RPC_ERROR] = true;

  constructor(
    readonly code: number,
    message: string,
    readonly data?: JsonObject,
  ) {
    super(message);
    this.name = 'V1RpcError';
  }

  /** Brand check that survives the package being loaded twice. */
  static is(value: unknown): value is V1RpcError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[RPC_ERROR] === true
    );
  }
}

/** An admission refusal as a JSON-RPC error (stdio, or a request without a connection). */
export const admissionRpcError = (refusal: AdmissionRefusal): V1RpcError =>
  new V1RpcError(ADMISSION_RPC_CODES[refusal.status], refusal.reason, admissionErrorData(refusal));

/** The JSON-RPC error for an unexpected failure: the cause goes to the server's `onError`, never to the client. */
export const internalRpcError = (): V1RpcError =>
  new V1RpcError(INTERNAL_RPC_ERROR.code, INTERNAL_RPC_ERROR.message);
