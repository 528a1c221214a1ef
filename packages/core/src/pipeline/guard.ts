import type { Connection, GateCheck } from '../context.js';
import type { Effect } from '../effects.js';
import { ConfigurationError, type ToolErrorInit } from '../errors.js';
import type { JsonObject } from '../json.js';

/** A tool as guards see it. */
export interface GuardedTool {
  readonly name: string;
  readonly effect: Effect;
}

/** One `tools/call`, after visibility and argument validation. */
export interface ToolCall {
  readonly tool: GuardedTool;
  readonly connection: Connection;
  /** The validated, normalized arguments. */
  readonly input: unknown;
  /** The JSON-RPC id of the request, if any (a re-sent request has a new one). */
  readonly requestId: string | number | undefined;
  /** Unique per call; the only thing an internal error shows. */
  readonly correlationId: string;
  readonly now: Date;
  readonly signal: AbortSignal;
}

/** A successful result: presenter output. */
export interface ResultOutcome {
  readonly kind: 'result';
  readonly data: JsonObject;
  /** Set when a replay guard answered from its cache (I10). */
  readonly replayed?: boolean;
  /** Public ids of the objects touched, for logs and audit. */
  readonly objectIds?: readonly string[];
}

/** A prepared outward action awaiting `confirm_action` (I9). */
export interface PreviewOutcome {
  readonly kind: 'preview';
  readonly preview: JsonObject;
}

/** A refusal the model sees as a tool error (I18). */
export interface RefusedOutcome {
  readonly kind: 'refused';
  readonly error: ToolErrorInit;
}

/** What a guard or the tool produces. Core renders it; guards never build MCP results. */
export type Outcome = ResultOutcome | PreviewOutcome | RefusedOutcome;

/** Calls the rest of the chain: further guards, then the tool. */
export type Next = () => Promise<Outcome>;

/**
 * A server-side gate around tool execution. It decides: it returns `next()`
 * to let the call proceed, returns a refusal, or answers itself (a replay).
 * It never renders a transport response.
 *
 * A guard may also (or only) act at the transport gate, before credentials
 * are looked at (`gate`): the global kill switch answers 503 there.
 */
export interface Guard {
  /** Names the guard in stack traces, logs and docs. */
  readonly name: string;
  /** The effect classes `handle` applies to; all when absent. */
  readonly effects?: readonly Effect[] | undefined;
  /** Runs around each tool call of the listed effect classes. */
  readonly handle?: ((call: ToolCall, next: Next) => Promise<Outcome>) | undefined;
  /** Runs on every request before credentials (HTTP and stdio). */
  readonly gate?: GateCheck | undefined;
}

/** A refusal outcome. */
export function refuse(error: ToolErrorInit): RefusedOutcome {
  return { kind: 'refused', error };
}

/**
 * Declares a guard, validating its shape up front.
 *
 * @example
 * const business = defineGuard({ name: 'businessHours', effects: ['write'], handle: (call, next) => next() });
 */
export function defineGuard(guard: Guard): Guard {
  if (typeof guard.name !== 'string' || guard.name === '') {
    throw new ConfigurationError('A guard needs a non-empty name.');
  }
  if (guard.handle === undefined && guard.gate === undefined) {
    throw new ConfigurationError(`Guard ${guard.name}: give handle(), gate(), or both.`);
  }
  for (const facet of ['handle', 'gate'] as const) {
    if (guard[facet] !== undefined && typeof guard[facet] !== 'function') {
      throw new ConfigurationError(`Guard ${guard.name}: ${facet} must be a function.`);
    }
  }
  return Object.freeze({ ...guard });
}
