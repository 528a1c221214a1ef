import type { Connection } from '../context.js';
import type { Effect } from '../effects.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';

/**
 * A tool as every guard sees it: the same frozen object when the server is
 * built (`verify`), in `tools/list` and lookup (visibility) and on each call.
 * It carries what a guard decides on, never the tool's `run`.
 */
export interface GuardedTool {
  readonly name: string;
  readonly title: string | undefined;
  readonly effect: Effect;
  /** Rights a connection must hold to call it (I4). */
  readonly requires: readonly string[];
  /** The advertised input schema, guard-owned arguments included. */
  readonly inputSchema: JsonSchema;
  /** Names of the guards around the tool, in stage order. */
  readonly guards: readonly string[];
  /** The sibling update tool, when a duplicate guard makes this a create tool (I11). */
  readonly creates: { readonly updateTool: string } | undefined;
}

/** An argument a guard adds to the input of every tool it guards (e.g. `separate`, `idempotency_key`). */
export interface GuardArgument {
  /** JSON Schema of the value; validated before any guard runs. */
  readonly schema: JsonSchema;
  readonly required?: boolean;
}

/** The arguments a guard adds, by name. */
export type GuardArguments = { readonly [name: string]: GuardArgument };

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
  /** What guards allowed with so far: the context each handed on, merged. */
  readonly context: { readonly [name: string]: unknown };
  /** Adds a public, non-secret note to this call's audit row (e.g. a `separate` reason). */
  note(text: string): void;
  /** The JSON-RPC id of the request, if any (a re-sent request has a new one). */
  readonly requestId: string | number | undefined;
  /** Unique per call; the only thing an internal error shows. */
  readonly correlationId: string;
  readonly now: Date;
  readonly signal: AbortSignal;
}

/** What a `call` guard's `check` receives: the call, with the tool's input type. */
export interface CallGuardContext<TInput = unknown> {
  readonly tool: GuardedTool;
  readonly connection: Connection;
  readonly input: TInput;
  readonly guardArguments: { readonly [name: string]: Json };
  /** What earlier guards handed on (`allow({ … })`); a guard of the same stage may not have run yet. */
  readonly context: { readonly [name: string]: unknown };
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

/**
 * Naming conventions the build checks (I11). Their defaults are English and
 * snake_case; a product named otherwise passes its own pattern, or `false`
 * to drop a rule.
 */
export interface Conventions {
  /** A write tool whose name matches is a create tool and must carry a duplicate guard; default `/^create_/`. */
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
  /** Property names that would let a model pick a tenant (I3), squashed (lower case, letters and digits only). */
  readonly tenantLikeNames: ReadonlySet<string>;
}
