import type { Connection } from '../context.js';
import {
  EFFECT_TRAITS,
  EFFECTS,
  type Effect,
  type EffectAnnotations,
  type OutwardEffect,
} from '../effects.js';
import { ConfigurationError } from '../errors.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';
import type { Presenter } from '../presenter.js';
import type { CompiledInput, ToolInput } from '../schema/compileInput.js';
import { defineGuard, type Guard, type ToolCall } from './guard.js';

/** Who may decide a pending action: the model with the two-step confirm, or a person out of band. */
export type ApprovalMode = 'model' | 'person';

/** What `run` (and `prepare`) receive: typed input and the connection, never an ambient user (I2). */
export interface RunContext<TInput, TRight extends string, TServices> {
  readonly input: TInput;
  readonly connection: Connection<TRight>;
  /** The host's services, bound to this connection by `createGatehouse({ services })`. */
  readonly services: TServices;
  readonly signal: AbortSignal;
  readonly correlationId: string;
  readonly now: Date;
}

/** What an outward tool would send, computed without sending it (I9). */
export interface Prepared {
  /** The content that would go out (mail text, page message, rows to delete); hashed for the confirm check. */
  readonly content: Json;
  /** A server-written, human-readable summary of the action. */
  readonly summary: string;
}

interface ToolSpecBase<TInput, TValue, TRight extends string, TServices> {
  /** snake_case, unique per server. */
  readonly name: string;
  readonly title?: string;
  /** What the tool does. Never instructions to the model (I16). */
  readonly description: string;
  /** Rights the connection must hold; the tool is hidden without them (I4, I7). */
  readonly requires?: readonly TRight[];
  /** A Standard Schema (e.g. zod 4) or {@link jsonSchema}. Unknown fields are refused (I14). */
  readonly input: ToolInput<TInput>;
  /** Chooses the fields that leave the server (I17). */
  readonly presenter: Presenter<TValue>;
  /** Calls the host's services; for outward tools, runs only after `confirm_action`. */
  readonly run: (context: RunContext<TInput, TRight, TServices>) => Promise<TValue> | TValue;
  /**
   * Guards for this tool only, typed by its input and the host's services;
   * each runs in the stage it names (`call`, or `unit` inside the unit of work).
   * Give a list, or a function of {@link ToolGuards} whose `define` types a
   * guard written inline (`guards: (g) => [g.define({ … })]`): a bare
   * `defineGuard` call inside the list cannot see the tool's types.
   */
  readonly guards?: ToolGuardList<TInput, TServices>;
  /**
   * Declares a create tool (I11): its business key, how to find an existing
   * object with that key (on the unit of work's services, inside the unit),
   * and the sibling update tool. Core refuses a duplicate and adds the
   * `separate` + `reason` override to the tool's input.
   */
  readonly creates?: Creates<TInput, TServices>;
}

/** What a create tool declares about its business key (I11). */
export interface Creates<TInput, TServices> {
  /**
   * The business key of the input, shown in the refusal (e.g. customer and
   * start); `now` is the call's time, for presenting times in full (I20).
   */
  readonly key: (input: TInput, env: { readonly now: Date }) => JsonObject;
  /** Finds an existing object with that key in the caller's tenant. */
  readonly find: (context: {
    readonly input: TInput;
    readonly services: TServices;
    readonly connection: Connection;
  }) => Promise<{ readonly id: string } | undefined> | { readonly id: string } | undefined;
  /** The sibling update tool; the server refuses to build without it. */
  readonly updateTool: string;
  /** What the object is called in messages, e.g. `booking`; default `object`. */
  readonly noun?: string;
}

/** A tool that reads or writes silently: no `prepare`. */
export interface SilentToolSpec<TInput, TValue, TRight extends string, TServices>
  extends ToolSpecBase<TInput, TValue, TRight, TServices> {
  readonly effect: 'read' | 'write';
  readonly prepare?: undefined;
  readonly approval?: undefined;
}

/** A tool with an outward effect: `prepare` renders what would go out; `run` sends it after confirmation. */
export interface OutwardToolSpec<TInput, TValue, TRight extends string, TServices>
  extends ToolSpecBase<TInput, TValue, TRight, TServices> {
  readonly effect: OutwardEffect;
  readonly prepare: (context: RunContext<TInput, TRight, TServices>) => Promise<Prepared> | Prepared;
  /**
   * Who approves (I9): `model` confirms with `confirm_action`; `person`
   * approves on the host's page and no model call can complete it. Default:
   * the server's `approval.byEffect` for this class, else `model`.
   */
  readonly approval?: ApprovalMode;
}

/** Everything `defineTool` accepts. */
export type ToolSpec<TInput, TValue, TRight extends string, TServices> =
  | SilentToolSpec<TInput, TValue, TRight, TServices>
  | OutwardToolSpec<TInput, TValue, TRight, TServices>;

/** The executable part of a definition, with input and value types erased. */
export interface ToolRuntime<TRight extends string, TServices> {
  readonly input: CompiledInput<unknown>;
  readonly presenter: Presenter<unknown>;
  /** Host tools: the tool's `run`. */
  readonly run: ((context: RunContext<unknown, TRight, TServices>) => Promise<unknown> | unknown) | undefined;
  /** Built-in tools: handled by the server with the whole call (confirm_action needs the pipeline). */
  readonly handle?: ((call: ToolCall, unit: unknown) => Promise<JsonObject>) | undefined;
  readonly prepare:
    | ((context: RunContext<unknown, TRight, TServices>) => Promise<Prepared> | Prepared)
    | undefined;
  /** `confirm_action` and `reject_action`: core's confirm stage opens the pending action first. */
  readonly confirms?: 'confirm' | 'reject' | undefined;
}

/** The `tools/list` entry of a tool, computed once per definition. */
export interface ToolListing {
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
  readonly annotations: EffectAnnotations & { readonly title?: string };
}

/** An immutable tool definition, made by `defineTool`. */
export interface ToolDefinition<TRight extends string = string, TServices = unknown> {
  readonly name: string;
  readonly title: string | undefined;
  readonly description: string;
  readonly effect: Effect;
  readonly requires: readonly TRight[];
  /** Derived from the effect class (the one table in `EFFECT_TRAITS`), never written by hand. */
  readonly annotations: EffectAnnotations;
  readonly guards: readonly Guard[];
  /** The create declaration (I11), if the tool creates objects. */
  readonly creates: Creates<unknown, TServices> | undefined;
  /** Outward tools: who approves, when the tool says (else the server's policy decides). */
  readonly approval: ApprovalMode | undefined;
  readonly listing: ToolListing;
  readonly runtime: ToolRuntime<TRight, TServices>;
  /** The copy of a presented result a replay cache may keep (the presenter's `forReplay`). */
  readonly forReplay: (data: JsonObject) => JsonObject;
}

/** What `guards: (g) => […]` receives: guard builders typed with the tool's input and the host's services. */
export interface ToolGuards<TInput, TServices> {
  /** {@link defineGuard}, with the tool's input and the host's services as its types. */
  define(guard: Guard<TInput, TServices>): Guard<TInput, TServices>;
}

/** A tool's own guards: a list, or a function of the typed builders returning one. */
export type ToolGuardList<TInput, TServices> =
  | readonly Guard<TInput, TServices>[]
  | ((g: ToolGuards<TInput, TServices>) => readonly Guard<TInput, TServices>[]);

const TOOL_GUARDS: ToolGuards<never, never> = Object.freeze({ define: defineGuard });

/**
 * The guards a spec names, as a list: the function form called once with
 * the typed builders. Throws a `ConfigurationError` for anything but a list
 * of guards or a function returning one.
 */
export function toolGuardsOf(
  name: string,
  guards: ToolGuardList<never, never> | undefined,
): readonly Guard[] {
  const list = typeof guards === 'function' ? guards(TOOL_GUARDS) : (guards ?? []);
  if (!Array.isArray(list))
    throw new ConfigurationError(
      `Tool ${name}: guards must be a list of guards, or a function returning one.`,
    );
  return list as readonly Guard[];
}

/** Runtime checks of a spec's shape that types alone cannot promise (plain JS callers, casts). */
export function checkSpecShape(
  spec: {
    readonly name: string;
    readonly effect: unknown;
    readonly requires?: readonly string[];
    readonly presenter: unknown;
    readonly run: unknown;
    readonly prepare?: unknown;
    readonly approval?: unknown;
    readonly creates?: unknown;
  },
  rights: ReadonlySet<string>,
): void {
  const { name } = spec;
  if (!EFFECTS.includes(spec.effect as Effect)) {
    throw new ConfigurationError(`Tool ${name}: effect must be one of ${EFFECTS.join(', ')} (I8).`);
  }
  const outward = EFFECT_TRAITS[spec.effect as Effect].twoStep;
  if (outward && typeof spec.prepare !== 'function') {
    throw new ConfigurationError(
      `Tool ${name}: a ${String(spec.effect)} tool needs prepare() to render what would go out (I9).`,
    );
  }
  if (!outward && spec.prepare !== undefined) {
    throw new ConfigurationError(`Tool ${name}: only notify, wake, alert and delete tools take prepare().`);
  }
  if (spec.approval !== undefined) {
    if (!outward) throw new ConfigurationError(`Tool ${name}: only outward tools take approval (I9).`);
    if (spec.approval !== 'model' && spec.approval !== 'person')
      throw new ConfigurationError(`Tool ${name}: approval must be 'model' or 'person'.`);
  }
  if (typeof spec.run !== 'function') throw new ConfigurationError(`Tool ${name}: run must be a function.`);
  const presenter = spec.presenter as Partial<Presenter<unknown>> | undefined;
  if (typeof presenter?.present !== 'function' || typeof presenter.outputSchema !== 'object') {
    throw new ConfigurationError(`Tool ${name}: presenter must have present() and an outputSchema.`);
  }
  if (spec.creates !== undefined) {
    const creates = spec.creates as Partial<Creates<unknown, unknown>>;
    if (spec.effect !== 'write') {
      throw new ConfigurationError(`Tool ${name}: only write tools declare creates (I11).`);
    }
    if (
      typeof creates.key !== 'function' ||
      typeof creates.find !== 'function' ||
      typeof creates.updateTool !== 'string'
    ) {
      throw new ConfigurationError(`Tool ${name}: creates needs key(), find() and updateTool (I11).`);
    }
  }
  const unknownRights = (spec.requires ?? []).filter((right) => !rights.has(right));
  if (unknownRights.length > 0) {
    throw new ConfigurationError(`Tool ${name}: requires unknown rights ${unknownRights.join(', ')}.`);
  }
}

/** Presented objects must be JSON objects; anything else is a presenter bug. */
export function assertJsonObject(tool: string, value: unknown): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigurationError(`Tool ${tool}: the presenter must return a JSON object.`);
  }
  return value as JsonObject;
}
