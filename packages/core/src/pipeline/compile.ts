import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { GuardArgument, GuardedTool } from '../contract/call.js';
import type { CallGuard, ToolGuard, UnitGuard } from '../contract/guard.js';
import type { ToolDefinition, ToolListing } from '../contract/tool.js';
import { EFFECT_TRAITS, type Effect } from '../effects.js';
import { ConfigurationError, ToolError } from '../errors.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';
import { isPlainObject } from '../json.js';
import { strictSchema } from '../schema/strictness.js';
import { type ArgumentCaps, checkArgumentCaps } from './caps.js';
import type { GuardSet } from './guardSet.js';
import { compileOutputCheck, type OutputCheck } from './output.js';

interface PlannedArgument {
  readonly required: boolean;
  readonly validate: (value: unknown) => boolean;
}

/**
 * Which way core runs a tool: a read; a silent write (claim, unit of work);
 * an outward tool's preview (I9); `confirm_action`; or `reject_action`.
 */
export type CallRoute = 'read' | 'write' | 'preview' | 'confirm' | 'reject';

/** A tool as one server runs it, compiled once when the server is built. */
export interface CompiledTool<TRight extends string = string, TServices = unknown> {
  readonly tool: ToolDefinition<TRight, TServices>;
  /** The tool as its guards see it, built once: what `verify`, visibility and every call receive. */
  readonly guarded: GuardedTool;
  readonly route: CallRoute;
  /** The rate bucket a call takes its token from: the effect class, `read` for built-ins. */
  readonly bucket: Effect;
  /** Stateless guards, after the arguments are read (server-wide for the effect, then the tool's). */
  readonly callGuards: readonly CallGuard[];
  /** Check-then-act guards, inside the unit of work (server-wide for the effect, then the tool's). */
  readonly unitGuards: readonly UnitGuard[];
  /** The tool's listing with guard-owned arguments merged into its input schema. */
  readonly listing: ToolListing;
  readonly guardArguments: ReadonlyMap<string, PlannedArgument>;
  /** Checks a rendered result against the advertised `outputSchema`, compiled once (I19). */
  readonly checkOutput: OutputCheck;
}

function mergeSchema(
  own: JsonSchema,
  extra: ReadonlyMap<string, { schema: JsonSchema; required: boolean }>,
): JsonSchema {
  if (extra.size === 0) return own;
  const properties = { ...(own.properties as JsonObject | undefined) };
  const required = [...((own.required as string[] | undefined) ?? [])];
  for (const [name, argument] of extra) {
    properties[name] = argument.schema as JsonObject;
    if (argument.required) required.push(name);
  }
  return Object.freeze({ ...own, properties, ...(required.length > 0 ? { required } : {}) });
}

function routeOf(tool: Pick<ToolDefinition, 'runtime' | 'effect'>): CallRoute {
  if (tool.runtime.confirms) return tool.runtime.confirms;
  if (tool.effect === 'read') return 'read';
  return EFFECT_TRAITS[tool.effect].twoStep ? 'preview' : 'write';
}

/**
 * Compiles a tool for a server: its route and rate bucket, its guards by
 * kind (server-wide ones for its effect class first, then its own),
 * guard-owned arguments (the claim guard's `idempotency_key` on writes and
 * confirmations, a duplicate guard's `separate` + `reason`) and the
 * advertised listing. Refuses a `unit` guard on a read tool: it would have
 * no unit of work.
 */
export function compileTool<TRight extends string, TServices>(
  tool: ToolDefinition<TRight, TServices>,
  set: GuardSet,
  ajv: Ajv2020,
  outputAjv: Ajv2020,
): CompiledTool<TRight, TServices> {
  const route = routeOf(tool as unknown as ToolDefinition);
  const builtIn = tool.runtime.run === undefined;
  const applies = (g: ToolGuard) => !g.effects || g.effects.includes(tool.effect);
  const callGuards: CallGuard[] = [...set.call.filter(applies), ...tool.guards.filter(isCall)];
  const unitGuards: UnitGuard[] = [
    ...(builtIn ? [] : set.unit.filter(applies)),
    ...tool.guards.filter((g): g is UnitGuard => g.kind === 'unit'),
  ];
  if (unitGuards.length > 0 && route !== 'write' && route !== 'preview') {
    throw new ConfigurationError(
      `Tool ${tool.name}: guard ${unitGuards[0]!.name} runs in the unit of work, which ${route === 'read' ? 'a read tool' : tool.name} does not open for it; use a call guard.`,
    );
  }
  const creators = unitGuards.filter((g) => g.creates !== undefined);
  if (creators.length > 1)
    throw new ConfigurationError(`Tool ${tool.name}: one duplicate guard per create tool (I11).`);
  const own = new Set(Object.keys((tool.listing.inputSchema.properties as JsonObject | undefined) ?? {}));
  const extra = new Map<string, { schema: JsonSchema; required: boolean; guard: string }>();
  const add = (owner: string, name: string, argument: GuardArgument) => {
    const clash = own.has(name) ? 'the tool' : extra.get(name)?.guard;
    if (clash) {
      throw new ConfigurationError(
        `Tool ${tool.name}: ${owner} adds argument "${name}", which ${clash} already has.`,
      );
    }
    // Strict like the tool's own schema: an object a guard takes refuses unknown keys too (I14).
    const schema = strictSchema(argument.schema);
    extra.set(name, { schema, required: argument.required ?? false, guard: owner });
  };
  if (route !== 'read' && route !== 'preview' && set.claim) {
    for (const [name, argument] of Object.entries(set.claim.arguments ?? {}))
      add(`guard ${set.claim.name}`, name, argument);
  }
  for (const guard of [...callGuards, ...unitGuards]) {
    for (const [name, argument] of Object.entries(guard.arguments ?? {}))
      add(`guard ${guard.name}`, name, argument);
  }
  const guardArguments = new Map(
    [...extra].map(([name, a]) => [name, { required: a.required, validate: ajv.compile(a.schema) }] as const),
  );
  const listing = Object.freeze({
    ...tool.listing,
    inputSchema: mergeSchema(tool.listing.inputSchema, extra),
  });
  const guarded: GuardedTool = Object.freeze({
    name: tool.name,
    title: tool.title,
    effect: tool.effect,
    requires: tool.requires,
    inputSchema: listing.inputSchema,
    guards: Object.freeze([...callGuards, ...unitGuards].map((g) => g.name)),
    creates: creators[0]?.creates,
  });
  return Object.freeze({
    tool,
    guarded,
    route,
    bucket: builtIn ? 'read' : tool.effect,
    callGuards: Object.freeze(callGuards),
    unitGuards: Object.freeze(unitGuards),
    listing,
    guardArguments,
    checkOutput: compileOutputCheck(listing, outputAjv),
  });
}

const isCall = (g: ToolGuard): g is CallGuard => g.kind === 'call';

/** Arguments split into the tool's own (validated) and the guards' (validated). */
export interface ReadArguments {
  readonly input: unknown;
  readonly own: JsonObject;
  readonly guardArguments: { readonly [name: string]: Json };
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormed = (text: string) => !LONE_SURROGATE.test(text);

/** The path of the first string (or key) that is not well-formed Unicode (a lone surrogate), if any. */
function illFormedAt(value: unknown, path: string, depth = 0): string | undefined {
  if (typeof value === 'string') return wellFormed(value) ? undefined : path || '(root)';
  if (depth > 64 || typeof value !== 'object' || value === null) return undefined;
  for (const [key, child] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (!wellFormed(key)) return childPath;
    const found = illFormedAt(child, childPath, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Splits and validates arguments (I14): their shape within the caps first
 * (bounded work before any schema runs), then well-formed text (a lone
 * surrogate has no canonical JSON, so it could not be hashed or stored),
 * then guard-owned arguments, then the tool's own schema.
 */
export async function readArguments<TRight extends string, TServices>(
  compiled: CompiledTool<TRight, TServices>,
  args: unknown,
  caps: ArgumentCaps,
): Promise<ReadArguments> {
  const { tool, guardArguments } = compiled;
  checkArgumentCaps(tool.name, args, caps);
  const illFormed = illFormedAt(args, '');
  if (illFormed) {
    throw new ToolError({
      code: 'invalid_arguments',
      message: `Arguments for ${tool.name} are invalid: ${illFormed} is not well-formed Unicode text (a lone surrogate).`,
      fix: 'Send text as well-formed UTF-16 (every surrogate paired).',
      details: { issues: [{ path: illFormed, message: 'is not well-formed Unicode' }] },
    });
  }
  if (guardArguments.size === 0 || !isPlainObject(args)) {
    const own = isPlainObject(args) ? args : {};
    return { input: await tool.runtime.input.parse(args), own, guardArguments: {} };
  }
  const own: Record<string, Json> = {};
  const taken: Record<string, Json> = {};
  for (const [key, value] of Object.entries(args)) (guardArguments.has(key) ? taken : own)[key] = value;
  const issues: { path: string; message: string }[] = [];
  for (const [name, argument] of guardArguments) {
    if (!(name in taken)) {
      if (argument.required) issues.push({ path: name, message: 'is required' });
    } else if (!argument.validate(taken[name])) {
      issues.push({ path: name, message: 'does not match its schema (see tools/list)' });
    }
  }
  if (issues.length > 0) {
    throw new ToolError({
      code: 'invalid_arguments',
      message: `Arguments for ${tool.name} are invalid: ${issues.map((i) => `${i.path} ${i.message}`).join('; ')}.`,
      fix: `Send arguments that match the input schema of ${tool.name} (see tools/list).`,
      details: { issues, allowed: [...tool.runtime.input.allowed, ...guardArguments.keys()] },
    });
  }
  const input = await tool.runtime.input.parse(own, [...guardArguments.keys()]);
  return { input, own, guardArguments: taken };
}
