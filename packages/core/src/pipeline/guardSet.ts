import { type Decision, errorOf, isDecision } from '../contract/decision.js';
import {
  type AdmissionGuard,
  type CallGuard,
  type ClaimGuard,
  checkGuard,
  type Guard,
  type GuardDuty,
  type OutputGuard,
  type OutwardGuard,
  type RateGuard,
  type UnitGuard,
  type VisibilityGuard,
} from '../contract/guard.js';
import type { ToolDefinition } from '../contract/tool.js';
import { EFFECT_TRAITS } from '../effects.js';
import { ConfigurationError, type ToolErrorInit } from '../errors.js';

/** A guard returned something that is not a decision: a defect of the guard, answered `internal_error`. */
export class GuardDefect extends Error {
  override readonly name = 'GuardDefect';
  constructor(guard: string) {
    super(`Guard ${guard} returned no decision ({ ok: true } or { ok: false, code, message, fix }).`);
  }
}

/** The refusal in `decision`, or nothing when it allows; anything but a decision throws {@link GuardDefect}. */
export function refusalIn(guard: { readonly name: string }, decision: unknown): ToolErrorInit | undefined {
  if (!isDecision(decision)) throw new GuardDefect(guard.name);
  return decision.ok ? undefined : errorOf(decision);
}

/** The guards of one server, by kind; core runs each kind in its stage. */
export interface GuardSet<TRight extends string = string> {
  readonly admission: readonly AdmissionGuard[];
  readonly visibility: readonly VisibilityGuard<TRight>[];
  readonly rate: RateGuard | undefined;
  readonly call: readonly CallGuard[];
  readonly claim: ClaimGuard | undefined;
  readonly unit: readonly UnitGuard[];
  readonly outward: OutwardGuard<TRight> | undefined;
  readonly output: readonly OutputGuard[];
}

const ONE_OF_A_KIND = ['rate', 'claim', 'outward'] as const;

/** Sorts a server's guards by kind, checking each; two guards of a kind that holds state (rate, claim, outward) are refused. */
export function guardSetOf<TRight extends string>(guards: readonly Guard<TRight>[]): GuardSet<TRight> {
  if (!Array.isArray(guards))
    throw new ConfigurationError('createServer: guards must be a list of guards (see standardGuards).');
  const names = new Set<string>();
  for (const guard of guards) {
    checkGuard(guard, 'createServer: a guard');
    if (names.has(guard.name))
      throw new ConfigurationError(`createServer: two guards are named ${guard.name}; names must be unique.`);
    names.add(guard.name);
  }
  const of = <K extends Guard<TRight>['kind']>(kind: K) =>
    guards.filter((g): g is Extract<Guard<TRight>, { kind: K }> => g.kind === kind);
  for (const kind of ONE_OF_A_KIND) {
    const found = of(kind);
    if (found.length > 1)
      throw new ConfigurationError(
        `createServer: one ${kind} guard per server; got ${found.map((g) => g.name).join(' and ')}.`,
      );
  }
  return Object.freeze({
    admission: of('admission'),
    visibility: of('visibility'),
    rate: of('rate')[0],
    call: of('call'),
    claim: of('claim')[0],
    unit: of('unit'),
    outward: of('outward')[0],
    output: of('output'),
  });
}

/** What a server must have for its tools, and the factory of `@gatehousejs/guards` that supplies it. */
interface Requirement {
  readonly what: string;
  readonly factory: string;
  readonly needed: (tool: Pick<ToolDefinition, 'effect'>) => boolean;
  readonly present: (set: GuardSet) => boolean;
}

const hasDuty = (set: GuardSet, duty: GuardDuty) =>
  set.visibility.some((g) => g.duty === duty) || set.admission.some((g) => g.duty === duty);
const everyTool = () => true;

/**
 * The guards each tool needs (enforcement by construction): every tool the
 * tenant binding (I3), live rights (I4), both kill switches (I6) and output
 * cleaning (I16); a write the claim stage (I10); an outward tool the
 * outward stage (I9).
 */
const REQUIREMENTS: readonly Requirement[] = [
  {
    what: 'the tenant binding (I3)',
    factory: 'tenantGuard()',
    needed: everyTool,
    present: (s) => hasDuty(s, 'tenant'),
  },
  {
    what: 'live rights (I4)',
    factory: 'rightsGuard()',
    needed: everyTool,
    present: (s) => hasDuty(s, 'rights'),
  },
  {
    what: 'the global kill switch (I6)',
    factory: 'killSwitchGuards({ switches })',
    needed: everyTool,
    present: (s) => hasDuty(s, 'killSwitch'),
  },
  {
    what: 'the per-tenant switch (I6)',
    factory: 'killSwitchGuards({ switches })',
    needed: everyTool,
    present: (s) => hasDuty(s, 'tenantSwitch'),
  },
  {
    what: 'output cleaning (I16)',
    factory: 'untrustedTextGuard()',
    needed: everyTool,
    present: (s) => s.output.length > 0,
  },
  {
    what: 'a claim guard: every write is replay-protected (I10)',
    factory: 'replayGuard({ store })',
    needed: (t) => t.effect !== 'read',
    present: (s) => s.claim !== undefined,
  },
  {
    what: 'an outward guard: the two-step confirm (I9)',
    factory: 'confirmGuard({ store })',
    needed: (t) => EFFECT_TRAITS[t.effect].twoStep,
    present: (s) => s.outward !== undefined,
  },
];

/**
 * Refuses a server whose guards lack a kind or duty one of its tools needs,
 * naming the tool, what is missing and the factory to add (or
 * `standardGuards(stores, { switches })`, which gives them all).
 */
export function requireGuards(
  tools: readonly Pick<ToolDefinition, 'name' | 'effect'>[],
  set: GuardSet,
): void {
  for (const requirement of REQUIREMENTS) {
    if (requirement.present(set)) continue;
    const tool = tools.find(requirement.needed);
    if (!tool) continue;
    throw new ConfigurationError(
      `Tool ${tool.name}: the server has no guard for ${requirement.what}; add ${requirement.factory} from @gatehousejs/guards to createServer({ guards }), or use standardGuards(stores, { switches }).`,
    );
  }
}

/** A decision's refusal, for code that holds a decision already checked. */
export const refusalOf = (decision: Decision): ToolErrorInit | undefined =>
  decision.ok ? undefined : errorOf(decision);
