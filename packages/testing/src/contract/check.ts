import type { JsonObject } from '@gatehousejs/core';
import type { ContractClient, ContractReply } from './client.js';
import { errorCode } from './envelope.js';
import type { ArgsSource, ContractActor, ContractGrant, ContractHost } from './fixture.js';
import type { ResultLedger } from './ledger.js';
import type { EffectMark } from './observe.js';
import type { ContractPlan, ContractTool, HostFeature } from './plan.js';

/** Whether a case runs: yes, not at all (not registered), or skipped with the reason shown. */
export type Selection = 'run' | 'not-applicable' | { readonly skip: string };

/** What a check receives for one case: the plan, a fresh host, clients and observation helpers. */
export interface CheckContext {
  readonly plan: ContractPlan;
  readonly host: ContractHost;
  readonly ledger: ResultLedger;
  /** A client sending `token` (none: no credential); `headers` replace request headers (HTTP). */
  client(token: string | undefined, headers?: Record<string, string>): Promise<ContractClient>;
  /** Mints a token for `actor` and opens a client with it. */
  as(actor: ContractActor, grant?: ContractGrant): Promise<ContractClient>;
  /** Resolves fixture arguments against the running host. */
  args(source: ArgsSource<ContractHost> | undefined): Promise<JsonObject | undefined>;
  /** The fixture's sample for `tool`, or arguments synthesized from its input schema. */
  sample(tool: ContractTool): Promise<JsonObject>;
  /** The host's rows and sent messages now. */
  mark(): Promise<EffectMark>;
  /** What changed since `mark` (rows, messages), as sentences. */
  since(mark: EffectMark): Promise<string[]>;
}

/** A check's context for one tool. */
export interface ToolCheckContext extends CheckContext {
  readonly tool: ContractTool;
}

/**
 * One contract check: what it does to the server and what it observes,
 * returned as findings (sentences). No findings means the invariant held.
 * Checks run programmatically (`runContractCheck`) or registered into vitest
 * (`describeContract`), which wraps the same function.
 */
export interface ContractCheck {
  /** Stable id, e.g. `I14.unknown-arguments`. */
  readonly id: string;
  /** The invariant it proves, e.g. `I14`. */
  readonly invariant: string;
  /** Short title; the vitest `describe` is `<invariant> <title>`. */
  readonly title: string;
  /** One case per discovered tool, or one for the server. */
  readonly scope: 'tool' | 'server';
  /** Whether the case for `tool` (undefined for server checks) runs, is skipped, or does not apply. */
  select(plan: ContractPlan, tool: ContractTool | undefined): Selection;
  /** The vitest `it` sentence of a case. */
  sentence(tool: ContractTool | undefined): string;
  /** Runs one case; returns findings. */
  run(context: CheckContext, tool: ContractTool | undefined): Promise<readonly string[]>;
}

/** What a per-tool check is defined with. */
export interface ToolCheckSpec {
  readonly id: string;
  readonly title: string;
  /** Selection for one tool; default: every tool. */
  readonly select?: (tool: ContractTool, plan: ContractPlan) => Selection;
  /** Sentence after the tool name, e.g. `refuses an extra field and writes nothing`. */
  readonly does: string;
  readonly run: (context: ToolCheckContext) => Promise<readonly string[]>;
}

const invariantOf = (id: string) => id.split('.')[0] ?? id;

/** Defines a check with one case per discovered tool. */
export function defineToolCheck(spec: ToolCheckSpec): ContractCheck {
  return Object.freeze({
    id: spec.id,
    invariant: invariantOf(spec.id),
    title: spec.title,
    scope: 'tool' as const,
    select: (plan: ContractPlan, tool: ContractTool | undefined): Selection =>
      tool === undefined ? 'not-applicable' : (spec.select?.(tool, plan) ?? 'run'),
    sentence: (tool: ContractTool | undefined) => `${tool?.name ?? '(tool)'} ${spec.does}`,
    run: (context: CheckContext, tool: ContractTool | undefined) => {
      if (tool === undefined) return Promise.resolve(['a per-tool check ran without a tool']);
      return spec.run({ ...context, tool });
    },
  });
}

/** What a server-wide check is defined with. */
export interface ServerCheckSpec {
  readonly id: string;
  readonly title: string;
  readonly select?: (plan: ContractPlan) => Selection;
  /** The `it` sentence. */
  readonly does: string;
  readonly run: (context: CheckContext) => Promise<readonly string[]>;
}

/** Defines a check with one case for the whole server. */
export function defineServerCheck(spec: ServerCheckSpec): ContractCheck {
  return Object.freeze({
    id: spec.id,
    invariant: invariantOf(spec.id),
    title: spec.title,
    scope: 'server' as const,
    select: (plan: ContractPlan, tool: ContractTool | undefined): Selection =>
      tool !== undefined ? 'not-applicable' : (spec.select?.(plan) ?? 'run'),
    sentence: () => spec.does,
    run: (context: CheckContext) => spec.run(context),
  });
}

/** Skips when the host lacks a feature. */
export function needs(plan: ContractPlan, ...features: HostFeature[]): Selection {
  const missing = features.filter((f) => !plan.features.has(f));
  return missing.length === 0 ? 'run' : { skip: `the fixture's host offers no ${missing.join(', ')}()` };
}

/**
 * Skips when the fixture gives no sample for `tool`. Gatehouse's confirm tools
 * are not applicable: a valid call needs a fresh confirm token, which the I9
 * check obtains and exercises itself.
 */
export function needsSample(tool: ContractTool): Selection {
  if (tool.confirmsOutward) return 'not-applicable';
  return tool.fixture.sample ? 'run' : { skip: `the fixture gives no sample arguments for ${tool.name}` };
}

/** Combines selections: the first that is not `run` wins. */
export function allOf(...selections: Selection[]): Selection {
  return selections.find((s) => s !== 'run') ?? 'run';
}

/** Describes a reply in a finding: status, error code, or failure. */
export function describeReply(reply: ContractReply): string {
  if (reply.failure) return `a transport failure (${reply.failure})`;
  if (reply.status !== 200) return `HTTP ${reply.status}`;
  if (reply.rpcError) return `JSON-RPC error ${reply.rpcError.code} (${reply.rpcError.message})`;
  if (reply.result?.isError === true) return `a tool error (${errorCode(reply.result) ?? 'no code'})`;
  return 'a successful result';
}

/** True for a `tools/call` that answered with a successful result. */
export const succeeded = (reply: ContractReply): boolean =>
  reply.status === 200 && reply.result !== undefined && reply.result.isError !== true;

/** The finding for a fixture sample the host refused: the case cannot prove anything. */
export function sampleRefused(tool: ContractTool, reply: ContractReply): string {
  return `the fixture's sample for ${tool.name} was answered with ${describeReply(reply)}; fix the sample so the check can observe an effect`;
}
