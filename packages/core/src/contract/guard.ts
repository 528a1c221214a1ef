import type { Connection, GateCheck } from '../context.js';
import type { Effect } from '../effects.js';
import { ConfigurationError, type ToolErrorInit } from '../errors.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';

/** A tool as guards see it. */
export interface GuardedTool {
  readonly name: string;
  readonly effect: Effect;
}

/** An argument a guard adds to the input of every tool it guards (e.g. `separate`). */
export interface GuardArgument {
  /** JSON Schema of the value; validated before any guard runs. */
  readonly schema: JsonSchema;
  readonly required?: boolean;
}

/** One `tools/call`, after visibility, the rate token and argument validation. */
export interface ToolCall {
  readonly tool: GuardedTool;
  readonly connection: Connection;
  /** The validated, normalized arguments of the tool itself. */
  readonly input: unknown;
  /** The arguments the tool's own schema has, exactly as sent (digests use these). */
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

/** What a guard's `check` receives: the call, with the tool's input type. */
export interface CallGuardContext<TInput = unknown> {
  readonly tool: GuardedTool;
  readonly connection: Connection;
  readonly input: TInput;
  readonly guardArguments: { readonly [name: string]: Json };
  readonly now: Date;
  /** Adds a public, non-secret note to this call's audit row. */
  note(text: string): void;
}

/**
 * What a `unit` guard's `check` receives: the call, and the services built for
 * it from the unit of work's handle, every outward port closed.
 */
export interface UnitGuardContext<TInput = unknown, TServices = unknown> extends CallGuardContext<TInput> {
  readonly services: TServices;
  /**
   * Holds a lock on `key` until the unit of work ends (the unit of work's
   * `serialize`), so two calls checking the same key run one after the other.
   * Absent outside a unit of work and when the unit of work has no `serialize`.
   */
  readonly serialize?: ((key: string) => Promise<void>) | undefined;
}

/** Where a guard runs. Core owns the order; a guard names its stage, never a list position. */
export type GuardStage = 'call' | 'unit';

interface GuardBase {
  /** Names the guard in stack traces, logs and docs. */
  readonly name: string;
  /** The effect classes the guard applies to when installed server-wide; all when absent. */
  readonly effects?: readonly Effect[] | undefined;
  /** Runs on every request before credentials (HTTP and stdio): the admission stage. */
  readonly gate?: GateCheck | undefined;
  /**
   * Runs once per `tools/list` and `tools/call` with the authenticated
   * connection (e.g. a tenant switched off). A refusal hides every tool from
   * the listing and refuses the call with its code: listing and calling share
   * this one decision.
   */
  readonly connection?: ((connection: Connection) => Promise<ToolErrorInit | undefined>) | undefined;
  /** Arguments this guard adds to the advertised input of the tools it guards. */
  readonly arguments?: { readonly [name: string]: GuardArgument } | undefined;
  /**
   * Checks, when the server is built, that the guarded tool fits (e.g. an
   * update tool requires `version`); throws a `ConfigurationError`.
   */
  readonly verify?:
    | ((tool: PlannedTool, tools: ReadonlyMap<string, PlannedTool>, build: BuildContext) => void)
    | undefined;
}

/**
 * A stateless check after the arguments are read, before the replay claim:
 * returns a refusal, or nothing to let the call go on.
 */
export interface CallGuard<TInput = unknown> extends GuardBase {
  readonly stage?: 'call';
  check?(context: CallGuardContext<TInput>): Promise<ToolErrorInit | undefined> | ToolErrorInit | undefined;
}

/**
 * A check-then-act guard (version, batch, …): runs inside the unit of work,
 * on the unit's own services, right before the tool runs, so its check and
 * the write commit together. Only on write and outward tools.
 */
export interface UnitGuard<TInput = unknown, TServices = unknown> extends GuardBase {
  readonly stage: 'unit';
  check(
    context: UnitGuardContext<TInput, TServices>,
  ): Promise<ToolErrorInit | undefined> | ToolErrorInit | undefined;
}

/**
 * A server-side check. It decides and returns a refusal, or nothing; it never
 * calls the rest of the pipeline, never renders a response and never sees an
 * outward port.
 */
export type Guard<TInput = unknown, TServices = unknown> = CallGuard<TInput> | UnitGuard<TInput, TServices>;

/** A successful result: presenter output. */
export interface ResultOutcome {
  readonly kind: 'result';
  readonly data: JsonObject;
  /** Set when the replay stage answered from its record (I10). */
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

/** What the pipeline produces. Core renders it; guards never build MCP results. */
export type Outcome = ResultOutcome | PreviewOutcome | RefusedOutcome;

/**
 * Naming conventions the build checks (I11). Their defaults are English and
 * snake_case; a product named otherwise passes its own pattern, or `false`
 * to drop a rule.
 */
export interface Conventions {
  /** A write tool whose name matches is a create tool and must declare `creates`; default `/^create_/`. */
  readonly createTool: RegExp | false;
  /**
   * A parameter name (lower-cased) an update or edit tool may not take:
   * edits are silent, notifying is a notify tool. Default: notify, send,
   * email, mail, sms, message, page, alert as a leading word, or notify,
   * notification, email, mail, sms, message as a trailing one.
   */
  readonly notifyLikeParameter: RegExp | false;
}

/** The default {@link Conventions}. */
export const DEFAULT_CONVENTIONS: Conventions = Object.freeze({
  createTool: /^create_/,
  notifyLikeParameter:
    /^(notify|notification|send|email|mail|sms|message|page|alert)(_|$)|_(notify|notification|email|mail|sms|message)$/,
});

/** What a guard's `verify` learns about the server being built besides its tools. */
export interface BuildContext {
  readonly conventions: Conventions;
}

/** A tool as a guard's `verify` sees it when the server is built. */
export interface PlannedTool {
  readonly name: string;
  readonly effect: Effect;
  /** The advertised input schema, guard-owned arguments included. */
  readonly inputSchema: JsonSchema;
  /** Names of the guards around the tool. */
  readonly guards: readonly string[];
  /** Whether the tool declares `creates` (a create tool, I11). */
  readonly creates: boolean;
}

/** A refusal outcome. */
export function refuse(error: ToolErrorInit): RefusedOutcome {
  return { kind: 'refused', error };
}

const FACETS = ['check', 'gate', 'connection', 'verify'] as const;

/**
 * Declares a guard, validating its shape up front.
 *
 * @example
 * const business = defineGuard({ name: 'businessHours', effects: ['write'], check: ({ now }) => … });
 */
export function defineGuard<TInput = unknown, TServices = unknown>(
  guard: Guard<TInput, TServices>,
): Guard<TInput, TServices> {
  if (typeof guard.name !== 'string' || guard.name === '') {
    throw new ConfigurationError('A guard needs a non-empty name.');
  }
  const stage = guard.stage ?? 'call';
  if (stage !== 'call' && stage !== 'unit') {
    throw new ConfigurationError(`Guard ${guard.name}: stage must be "call" or "unit".`);
  }
  if ('handle' in guard) {
    throw new ConfigurationError(
      `Guard ${guard.name}: handle(call, next) is gone; give check(context) and a stage ("call" or "unit").`,
    );
  }
  if (guard.check === undefined && guard.gate === undefined && guard.connection === undefined) {
    throw new ConfigurationError(`Guard ${guard.name}: give check(), gate(), connection(), or several.`);
  }
  for (const facet of FACETS) {
    if (guard[facet] !== undefined && typeof guard[facet] !== 'function') {
      throw new ConfigurationError(`Guard ${guard.name}: ${facet} must be a function.`);
    }
  }
  return Object.freeze({ ...guard });
}

/** The stage a guard runs in. */
export const stageOf = (guard: Guard): GuardStage => guard.stage ?? 'call';
