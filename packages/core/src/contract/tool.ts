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
import type { ToolCall } from './call.js';
import type { Decision } from './decision.js';
import { type CallGuard, checkGuard, defineGuard, type ToolGuard, type UnitGuard } from './guard.js';
import type { ApprovalMode } from './pending.js';

export type { ApprovalMode } from './pending.js';

/** What `run` (and `prepare`) receive: typed input and the connection, never an ambient user (I2). */
export interface RunContext<TInput, TRight extends string, TServices, TContext extends object = object> {
  readonly input: TInput;
  /** What the tool's own guards handed on when they allowed the call (`allow({ … })`), typed. */
  readonly context: TContext;
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

interface ToolSpecBase<
  TInput,
  TValue,
  TRight extends string,
  TServices,
  TGuards extends readonly ToolGuard<TInput, TServices>[],
  TKit extends ToolGuardKit,
> {
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
  /**
   * Guards for this tool only, typed by its input and the host's services;
   * each runs in the stage its kind names (`call`, or `unit` inside the unit
   * of work). Give a function of {@link ToolGuards}, `guards: (g) => […]`:
   * everything built inside it (`g.define`, `g.version`, a guard factory)
   * takes its types from the tool. Write it before `run`, which receives
   * what the guards hand on as `context`. A plain list works too, but a
   * guard written inline in it cannot see the tool's types.
   */
  readonly guards?: TGuards | ((g: ToolGuards<TInput, TServices, TKit>) => TGuards);
  /** Calls the host's services; for outward tools, runs only after `confirm_action`. */
  readonly run: (
    context: RunContext<TInput, TRight, TServices, ContextOf<TGuards>>,
  ) => Promise<TValue> | TValue;
}

type IsAny<T> = 0 extends 1 & T ? true : false;

/** The context one guard hands on when it allows (`allow({ … })`). */
type ContextOfGuard<G> = G extends {
  check(context: never): Decision<infer C> | Promise<Decision<infer C>>;
}
  ? IsAny<C> extends true
    ? object
    : C
  : object;

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/** What a tool's guards hand on to `run`: every guard's context, together. */
export type ContextOf<TGuards> = TGuards extends readonly (infer G)[]
  ? [G] extends [never]
    ? object
    : UnionToIntersection<ContextOfGuard<G>>
  : object;

/** A tool that reads or writes silently: no `prepare`. */
export interface SilentToolSpec<
  TInput,
  TValue,
  TRight extends string,
  TServices,
  TGuards extends readonly ToolGuard<TInput, TServices>[] = readonly ToolGuard<TInput, TServices>[],
  TKit extends ToolGuardKit = NoToolGuards,
> extends ToolSpecBase<TInput, TValue, TRight, TServices, TGuards, TKit> {
  readonly effect: 'read' | 'write';
  readonly prepare?: undefined;
  readonly approval?: undefined;
}

/** A tool with an outward effect: `prepare` renders what would go out; `run` sends it after confirmation. */
export interface OutwardToolSpec<
  TInput,
  TValue,
  TRight extends string,
  TServices,
  TGuards extends readonly ToolGuard<TInput, TServices>[] = readonly ToolGuard<TInput, TServices>[],
  TKit extends ToolGuardKit = NoToolGuards,
> extends ToolSpecBase<TInput, TValue, TRight, TServices, TGuards, TKit> {
  readonly effect: OutwardEffect;
  readonly prepare: (
    context: RunContext<TInput, TRight, TServices, ContextOf<TGuards>>,
  ) => Promise<Prepared> | Prepared;
  /**
   * Who approves (I9): `model` confirms with `confirm_action`; `person`
   * approves on the host's page and no model call can complete it. Default:
   * the server's `approval.byEffect` for this class, else `model`.
   */
  readonly approval?: ApprovalMode;
}

/** Everything `defineTool` accepts. */
export type ToolSpec<
  TInput,
  TValue,
  TRight extends string,
  TServices,
  TGuards extends readonly ToolGuard<TInput, TServices>[] = readonly ToolGuard<TInput, TServices>[],
  TKit extends ToolGuardKit = NoToolGuards,
> =
  | SilentToolSpec<TInput, TValue, TRight, TServices, TGuards, TKit>
  | OutwardToolSpec<TInput, TValue, TRight, TServices, TGuards, TKit>;

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
  readonly guards: readonly ToolGuard[];
  /** Outward tools: who approves, when the tool says (else the server's policy decides). */
  readonly approval: ApprovalMode | undefined;
  readonly listing: ToolListing;
  readonly runtime: ToolRuntime<TRight, TServices>;
  /** The copy of a presented result a replay cache may keep (the presenter's `forReplay`). */
  readonly forReplay: (data: JsonObject) => JsonObject;
}

/**
 * What `guards: (g) => […]` receives: `define`, {@link defineGuard} typed
 * with the tool's input and the host's services, and the guard factories
 * the host bound with `createGatehouse({ toolGuards })` (e.g. `g.version`,
 * `g.duplicate` from `@gatehousejs/guards`), whose types flow from the tool too.
 */
export interface ToolGuardBuilders<TInput, TServices> {
  define<TContext extends object = object>(guard: CallGuard<TInput, TContext>): CallGuard<TInput, TContext>;
  define<TContext extends object = object>(
    guard: UnitGuard<TInput, TServices, TContext>,
  ): UnitGuard<TInput, TServices, TContext>;
}

/** No guard factories bound: `g` offers `define` only. */
export type NoToolGuards = Record<never, never>;

/** Guard factories a host binds once, by name, for `guards: (g) => [g.<name>(…)]`. */
// biome-ignore lint/suspicious/noExplicitAny: each factory is generic in the tool's input and services
export type ToolGuardKit = { readonly [name: string]: (...args: any[]) => ToolGuard<any, any> };

/** The builders a tool's `guards` function receives. */
export type ToolGuards<TInput, TServices, TKit extends ToolGuardKit = NoToolGuards> = ToolGuardBuilders<
  TInput,
  TServices
> &
  Omit<TKit, 'define'>;

/**
 * The guards a spec names, as a list: the function form called once with
 * the typed builders and the host's kit. Throws a `ConfigurationError` for
 * anything but a list of call and unit guards or a function returning one.
 */
export function toolGuardsOf(name: string, guards: unknown, kit: ToolGuardKit = {}): readonly ToolGuard[] {
  const builders = Object.freeze({ ...kit, define: defineGuard });
  const list: unknown = typeof guards === 'function' ? guards(builders) : (guards ?? []);
  if (!Array.isArray(list))
    throw new ConfigurationError(
      `Tool ${name}: guards must be a list of guards, or a function returning one.`,
    );
  for (const guard of list) {
    checkGuard(guard, `Tool ${name}: a guard`);
    if (guard.kind !== 'call' && guard.kind !== 'unit')
      throw new ConfigurationError(
        `Tool ${name}: guard ${guard.name} is a ${guard.kind} guard; a tool carries call and unit guards, install it server-wide in createServer({ guards }).`,
      );
  }
  return Object.freeze([...(list as ToolGuard[])]);
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
    throw new ConfigurationError(
      `Tool ${name}: creates is now the duplicate guard: guards: (g) => [g.duplicate({ key, find, updateTool })] (I11).`,
    );
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
