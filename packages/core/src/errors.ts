import type { JsonObject } from './json.js';

/**
 * Every error code a model can see, with what it means. One map, so docs and
 * tests enumerate the same list. Rule ids refer to the invariants (I1…I21).
 */
export const ERROR_CODES = {
  invalid_arguments: 'An argument failed the tool’s own validation rules (I14).',
  unknown_arguments: 'An argument the tool does not declare was sent; the allowed list is returned (I14).',
  unknown_tool: 'No tool of that name exists on this server.',
  tool_hidden: 'The tool exists but is hidden from this connection; the reason is given (I7).',
  missing_right: 'The connection lacks a right the tool requires (I4).',
  not_found: 'The referenced object does not exist in this tenant (I3).',
  rate_limited: 'The connection’s rate bucket for this effect class is empty (I7).',
  tenant_disabled: 'Agent access is switched off for this tenant (I6).',
  tenant_mismatch:
    'The connection is bound to another tenant than the one this request names; nothing ran (I3).',
  conflict: 'The object changed since the caller read it; the current version is returned (I12).',
  duplicate:
    'An object with the same business key exists; the existing id and the update tool are named (I11).',
  batch_count_mismatch: 'A batch filter matched a different number of objects than expected (I13).',
  batch_too_large: 'A batch exceeds the maximum size (I13).',
  idempotency_key_conflict: 'An idempotency key was reused with other arguments (I10).',
  still_running: 'An identical call is still running; retry after the hint (I10).',
  store_unavailable: 'A guard store could not be reached; nothing ran (fails closed).',
  outcome_unknown:
    'The database connection was lost while the change committed, so whether it took effect is not known; the same call again returns its result if it did, or runs it once (I10).',
  effect_violation: 'The call reached an outbound port its effect class does not allow (I8).',
  confirm_not_found: 'The confirm token is unknown to this connection (I9).',
  confirm_used: 'The confirm token was already used (I9).',
  confirm_expired: 'The confirm token expired (I9).',
  confirm_rejected: 'The pending action was rejected (I9).',
  confirm_summary_mismatch: 'The confirm summary differs from the one the server wrote (I9).',
  confirm_locked: 'Another confirmation of the same token is in progress (I9).',
  approval_pending:
    'A person has not yet approved or rejected the action on the product’s page; the token is kept (I9).',
  approval_rejected: 'A person rejected the action on the product’s page; nothing was sent (I9).',
  changed_since_preview: 'What would go out changed since the preview; a new preview is returned (I9).',
  policy_violation: 'Tool code broke a Gatehouse rule at run time (I2); nothing ran.',
  internal_error: 'An unexpected failure; only a correlation id is returned.',
} as const;

/** A code from {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * The codes a host's own error may be mapped to: decisions its services
 * make, and an outage of its database. Codes the pipeline owns (a confirm
 * token's fate, replay, `internal_error`) are not the host's to raise.
 */
export const HOST_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'invalid_arguments',
  'not_found',
  'missing_right',
  'conflict',
  'duplicate',
  'batch_count_mismatch',
  'batch_too_large',
  'store_unavailable',
]);

const TOOL_ERROR = Symbol.for('gatehouse.ToolError');
const CONFIGURATION_ERROR = Symbol.for('gatehouse.ConfigurationError');
const TRANSACTION_CONFLICT = Symbol.for('gatehouse.TransactionConflict');

/** The next call an error recommends, with real arguments. */
export interface NextCall {
  readonly tool: string;
  readonly arguments?: JsonObject;
}

/** Fields of a {@link ToolError}. */
export interface ToolErrorInit {
  readonly code: ErrorCode;
  /** The cause, in one sentence. */
  readonly message: string;
  /** What the caller should do instead, with real ids. */
  readonly fix: string;
  /** The tool to call next; "not found" must point to a `find_…` tool, never a create tool. */
  readonly next?: NextCall;
  /** Machine-readable details (public ids, allowed lists); never secrets or raw arguments. */
  readonly details?: JsonObject;
}

/**
 * A failure the model sees as a tool execution error (`isError: true`).
 *
 * Throw it from services or tools for business, validation and permission
 * failures; Gatehouse renders it as `Error: …` text ending in one JSON line
 * equal to `structuredContent` (I18, I19). Anything thrown that is not a
 * `ToolError` becomes a generic `internal_error`.
 *
 * @example
 * throw new ToolError({ code: 'not_found', message: 'Booking bk_1 does not exist.', fix: 'Search first.', next: { tool: 'find_bookings' } });
 */
export class ToolError extends Error {
  readonly [TOOL_ERROR] = true;
  readonly code: ErrorCode;
  readonly fix: string;
  readonly next: NextCall | undefined;
  readonly details: JsonObject;

  /** `options.cause` keeps what failed underneath (a driver's error) for logs; it is never rendered. */
  constructor(init: ToolErrorInit, options?: { readonly cause?: unknown }) {
    super(init.message, options);
    this.name = 'ToolError';
    this.code = init.code;
    this.fix = init.fix;
    this.next = init.next;
    this.details = init.details ?? {};
  }

  /** Brand check that survives the package being loaded twice. */
  static is(value: unknown): value is ToolError {
    return (
      typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[TOOL_ERROR] === true
    );
  }
}

/**
 * Whether a refusal code is an outage of a store rather than a decision:
 * `store_unavailable`, or `outcome_unknown` (the connection went while a
 * commit was under way). The same call may succeed shortly; a confirm token
 * is kept through one, and HTTP answers it 503 with `Retry-After`.
 */
export function isOutageCode(code: string): boolean {
  return code === 'store_unavailable' || code === 'outcome_unknown';
}

/** Whether `error` is a {@link ToolError} of an outage code (see {@link isOutageCode}). */
export function isOutage(error: unknown): error is ToolError {
  return ToolError.is(error) && isOutageCode(error.code);
}

/**
 * The database rolled a transaction back because it lost to a concurrent
 * one (a serialization failure or a deadlock): nothing of it was kept, and
 * the same work may succeed when run again. A store throws it; core runs the
 * unit of work again a bounded number of times (only while the call's
 * replay claim is current and before any outward port was reached), and
 * otherwise it answers as what it is, `store_unavailable`.
 */
export class TransactionConflict extends ToolError {
  readonly [TRANSACTION_CONFLICT] = true;

  constructor(options?: { readonly cause?: unknown }) {
    super(
      {
        code: 'store_unavailable',
        message: 'The change lost to a concurrent one and was rolled back; nothing ran.',
        fix: 'Retry the same call shortly.',
      },
      options,
    );
    this.name = 'TransactionConflict';
  }

  /** Brand check that survives the package being loaded twice. */
  static override is(value: unknown): value is TransactionConflict {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[TRANSACTION_CONFLICT] === true
    );
  }
}

/**
 * A mistake in how Gatehouse is set up (a bad tool definition, bad guard
 * options). Thrown at definition or build time, never shown to a model.
 */
export class ConfigurationError extends Error {
  readonly [CONFIGURATION_ERROR] = true;

  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }

  /** Brand check that survives the package being loaded twice. */
  static is(value: unknown): value is ConfigurationError {
    return (
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[CONFIGURATION_ERROR] === true
    );
  }
}
