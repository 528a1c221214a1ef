import type { Connection } from '../context.js';
import type { ToolCall } from '../contract/call.js';
import type { ApprovalLink } from '../contract/outcome.js';
import type { ToolErrorInit } from '../errors.js';
import type { Json, JsonObject } from '../json.js';
import type { RequestSpan } from '../telemetry.js';
import type { ArgumentCaps } from './caps.js';
import type { CompiledTool } from './compile.js';
import type { Host } from './execute.js';
import { type GuardSet, refusalIn } from './guardSet.js';
import type { OutwardStage } from './outward.js';
import { byRefusal, type Trace } from './trace.js';
import type { UnitOfWork } from './unitOfWork.js';
import type { Visibility } from './visibility.js';

/** Per-call facts the transport knows. */
export interface CallFacts {
  readonly requestId: string | number | undefined;
  readonly signal: AbortSignal | undefined;
  readonly correlationId: string;
  /** A retried call's request state: the pending action id of a person's action. */
  readonly requestState?: string | undefined;
  /** The request's telemetry span, when the server has telemetry. */
  readonly span?: RequestSpan | undefined;
}

/** What the pipeline needs to know of approval by a person. */
export interface PipelineApproval {
  /** Names of the tools whose actions a person approves. */
  readonly byPerson: ReadonlySet<string>;
  readonly url: (pendingActionId: string) => string;
}

/** What the stage runner is built from, once per server. */
export interface RunnerParts<TRight extends string, TServices> {
  readonly tools: ReadonlyMap<string, CompiledTool<TRight, TServices>>;
  readonly host: Host<TRight, TServices>;
  readonly guards: GuardSet<TRight>;
  readonly visibility: Visibility;
  readonly caps: ArgumentCaps;
  readonly unitOfWork: UnitOfWork;
  readonly outward: OutwardStage | undefined;
  readonly approval: PipelineApproval | undefined;
}

/** The arguments of a call, read: the tool's own input and the guards' arguments. */
export interface ReadCall {
  readonly input: unknown;
  readonly own: JsonObject;
  readonly guardArguments: ToolCall['guardArguments'];
}

/** A call's tool call, with its context as the guards fill it and its notes for the audit row. */
export function callOf(
  compiled: { readonly guarded: ToolCall['tool'] },
  connection: Connection,
  read: ReadCall,
  facts: Pick<CallFacts, 'requestId' | 'signal' | 'correlationId'>,
  notes: string[],
  now: Date,
): ToolCall {
  let signal = facts.signal;
  return {
    tool: compiled.guarded,
    connection,
    input: read.input,
    arguments: read.own,
    guardArguments: read.guardArguments,
    context: {},
    note: (text) => notes.push(text),
    requestId: facts.requestId,
    correlationId: facts.correlationId,
    now,
    // Made on first use: most calls never read it, and a controller per call is measurable.
    get signal() {
      signal ??= new AbortController().signal;
      return signal;
    },
  };
}

/**
 * Runs `guard`'s decision and hands what it allowed with on to the call's
 * context; the refusal, if it refused. Anything but a decision is a defect
 * of the guard (`internal_error`).
 */
export function merged(
  call: ToolCall,
  guard: { readonly name: string },
  decision: unknown,
): ToolErrorInit | undefined {
  const refused = refusalIn(guard, decision);
  if (refused) return refused;
  const context = call.context as Record<string, unknown>;
  for (const key in decision as object) {
    if (key !== 'ok') context[key] = (decision as Record<string, unknown>)[key];
  }
  return undefined;
}

/** The stateless guards of a call, in order (server-wide for the effect, then the tool's); the first refusal wins. */
export async function runCallGuards(
  compiled: Pick<CompiledTool, 'callGuards'>,
  call: ToolCall,
  trace: Trace,
): Promise<ToolErrorInit | undefined> {
  for (const guard of compiled.callGuards) {
    const refused = await trace(
      `guard ${guard.name}`,
      async () => merged(call, guard, await guard.check(call)),
      byRefusal,
    );
    if (refused) return refused;
  }
  return undefined;
}

/** What a changed preview carries back: the new content and its hash. */
export interface Changed {
  readonly content: Json;
  readonly contentHash: string;
}

/** Thrown inside a confirmation's unit when the content changed since the preview (or since a person saw it). */
export class ContentChanged extends Error {
  constructor(readonly changed: Changed) {
    super('The content changed.');
  }
}

/** What an approver's decision did inside the pipeline. */
export type ApprovedRun =
  | { readonly kind: 'executed'; readonly result: JsonObject }
  | { readonly kind: 'changed'; readonly content: Json; readonly contentHash: string }
  | { readonly kind: 'refused'; readonly error: ToolErrorInit };

/** Where a refused or previewed call tells the transport a person decides. */
export type { ApprovalLink };
