import type { AdmissionRefusal } from '../context.js';
import type { JsonObject } from '../json.js';

/** JSON-RPC error codes for admission refusals where there is no HTTP status to carry them (stdio). */
// Server-defined codes (JSON-RPC reserves -32000..-32099): chosen clear of the SDKs' own codes
// (v1 uses -32000, -32001 request timeout, -32042; v2 uses -32020..-32022).
export const ADMISSION_RPC_CODES = Object.freeze({ 401: -32041, 403: -32043, 503: -32053 });

/** The JSON-RPC code and message of an unexpected failure; the cause is never named. */
export const INTERNAL_RPC_ERROR = Object.freeze({ code: -32603, message: 'Internal error' });

/** The `data` of a refusal's JSON-RPC error: the HTTP status and, for 503, the retry hint. */
export function admissionErrorData(refusal: AdmissionRefusal): JsonObject {
  return {
    status: refusal.status,
    ...(refusal.retryAfterSeconds !== undefined ? { retry_after_seconds: refusal.retryAfterSeconds } : {}),
    ...(refusal.insufficientScope ? { scope: refusal.insufficientScope.join(' ') } : {}),
  };
}

/** How a transport names its OAuth metadata in challenges. */
export interface ChallengeOptions {
  /** `resource_metadata` URL of the Bearer challenge (RFC 9728). */
  readonly resourceMetadataUrl?: string | undefined;
  /** Scopes named in a 401 challenge's `scope` (initial guidance to clients). */
  readonly scopes?: readonly string[] | undefined;
}

/** The Bearer challenge of a 401, or of a 403 `insufficient_scope`; nothing for other refusals. */
function challenge(refusal: AdmissionRefusal, options: ChallengeOptions): string | undefined {
  const metadata = options.resourceMetadataUrl ? `resource_metadata="${options.resourceMetadataUrl}"` : '';
  if (refusal.status === 403 && refusal.insufficientScope) {
    const scope = `scope="${refusal.insufficientScope.join(' ')}"`;
    return ['Bearer error="insufficient_scope"', scope, metadata].filter(Boolean).join(', ');
  }
  if (refusal.status !== 401) return undefined;
  // RFC 6750 §3.1: a request without credentials gets a challenge with no error code.
  const error = refusal.credentialsMissing ? '' : 'error="invalid_token"';
  const scope = options.scopes?.length ? `scope="${options.scopes.join(' ')}"` : '';
  return ['Bearer realm="mcp"', error, scope, metadata].filter(Boolean).join(', ');
}

/** An admission refusal as an HTTP answer, independent of any HTTP library or SDK. */
export interface RenderedRefusal {
  readonly status: AdmissionRefusal['status'];
  /** Lower-case header names: `content-type`, `retry-after` on 503, `www-authenticate` on 401. */
  readonly headers: Readonly<Record<string, string>>;
  /** A JSON-RPC error body with `id: null`. */
  readonly body: string;
}

/**
 * Renders an admission refusal: a JSON-RPC error body (code from {@link ADMISSION_RPC_CODES},
 * the refusal's reason, {@link admissionErrorData}), `Retry-After` on 503 (default
 * 60 s) and a Bearer challenge on 401 (`error="invalid_token"` unless the request
 * carried no credentials; `scope` when `scopes` are given) and on a 403 for
 * missing OAuth scopes (`error="insufficient_scope"` with the `scope` that
 * would allow the request, I7), with `resource_metadata` when given.
 * Every HTTP adapter answers refusals through this one function.
 */
export function renderRefusal(refusal: AdmissionRefusal, options: ChallengeOptions = {}): RenderedRefusal {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (refusal.status === 503) headers['retry-after'] = String(refusal.retryAfterSeconds ?? 60);
  const bearer = challenge(refusal, options);
  if (bearer) headers['www-authenticate'] = bearer;
  const error = {
    code: ADMISSION_RPC_CODES[refusal.status],
    message: refusal.reason,
    data: admissionErrorData(refusal),
  };
  return { status: refusal.status, headers, body: JSON.stringify({ jsonrpc: '2.0', id: null, error }) };
}

/** The body of a bare HTTP 500: a JSON-RPC internal error that names no cause. */
export function internalErrorBody(): string {
  return JSON.stringify({ jsonrpc: '2.0', id: null, error: { ...INTERNAL_RPC_ERROR } });
}

/** Where HTTP admission put the connection in `AuthInfo.extra` (SDK v1 and v2 serving). */
export const CONNECTION_KEY = 'gatehouse.connection';
