import type { Connection, GateCheck } from '../context.js';
import type { Effect } from '../effects.js';
import { ConfigurationError, type ToolErrorInit } from '../errors.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';

/** A tool as guards see it. */
export interface GuardedTool {
  readonly name: string;
  readonly effect: Effect;
  /** The copy of a presented result a replay cache may keep (one-time fields withheld, I10). */
  readonly forReplay?: ((data: JsonObject) => JsonObject) | undefined;
}

/** An argument a guard adds to the input of every tool it guards (e.g. `idempotency_key`). */
export interface GuardArgument {
  /** JSON Schema of the value; validated before any guard runs. */
  readonly schema: JsonSchema;
  readonly required?: boolean;
}

/** One `tools/call`, after visibility and argument validation. */
export interface ToolCall {
  readonly tool: GuardedTool;
  readonly connection: Connection;
  /** The validated, normalized arguments of the tool itself. */
  readonly input: unknown;
  /** The arguments the tool's own schema does not have, exactly as sent (digests use these). */
  readonly arguments: JsonObject;
  /** Values of guard-owned arguments (`idempotency_key`, `separate`, …), validated. */
  readonly guardArguments: { readonly [name: string]: Json };
  /** Adds a public, non-secret note to this call's audit row (e.g. a `separate` reason). */
  note(text: string): void;
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
  /** Arguments this guard adds to the advertised input of the tools it guards. */
  readonly arguments?: { readonly [name: string]: GuardArgument } | undefined;
  /**
   * Checks, when the server is built, that the guarded tool fits (e.g. a create
   * tool's sibling update tool is registered); throws a `ConfigurationError`.
   */
  readonly verify?: ((tool: PlannedTool, tools: ReadonlyMap<string, PlannedTool>) => void) | undefined;
}

/** A tool as a guard's `verify` sees it when the server is built. */
export interface PlannedTool {
  readonly name: string;
  readonly effect: Effect;
  /** The advertised input schema, guard-owned arguments included. */
  readonly inputSchema: JsonSchema;
  /** Names of the guards around the tool. */
  readonly guards: readonly string[];
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
