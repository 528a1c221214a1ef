/**
 * The call pipeline: every `tools/call` runs through `runCall`, top to
 * bottom, in this order. Core owns it; hosts add guards to named stages.
 *
 *   (admission: gate checks, Host/Origin, credential → the transport, before this)
 *   1. lookup and visibility    one decision shared with tools/list (I6, I7)
 *   2. rate token               from the tool's bucket, before any argument work (I7)
 *   3. capped arguments         shape caps, then guard-owned, then the tool's schema (I14)
 *   4. call guards              stateless checks
 *   5. by kind:
 *      read     run → present
 *      preview  unit guards (read-only) → prepare, outward ports closed → pending action (I9)
 *      write    replay claim, committed on its own (I10)
 *               → unit of work { unit guards → run → audit row → replay completion } (I15)
 *      confirm  (a visibility refusal at 1 kills the token sent) replay claim
 *               → open the pending action (refusals kill the token, on their own)
 *               → visibility of confirm_action and of the target, the target's call guards
 *               → unit of work { unit guards → fresh prepare, content check → run
 *                                → executed mark → audit row → replay completion }
 *      reject   replay claim → open the pending action (refusals kill the token, on their own)
 *               → unit of work { rejected mark → audit row → replay completion }
 *   (present and validate against the outputSchema, render: the server, after this)
 */
import { type ClaimedAction, type ConfirmBook, oneLine } from '../confirm.js';
import type { Connection } from '../context.js';
import { type Outcome, refuse, type ToolCall } from '../contract/guard.js';
import { isOutage, isOutageCode, ToolError, type ToolErrorInit, TransactionConflict } from '../errors.js';
import { digest } from '../hashing.js';
import { contentDigest } from '../internal/contentDigest.js';
import { newId } from '../internal/ids.js';
import type { Json, JsonObject } from '../json.js';
import { isPlainObject } from '../json.js';
import type { PendingAction } from '../storage/pendingActionStore.js';
import type { RequestSpan, StageName, StageSpan } from '../telemetry.js';
import type { ArgumentCaps } from './caps.js';
import { appendAudit, CallServices, objectIdsOf, prepareTool, type Runner, runTool } from './execute.js';
import { readArguments, type ToolPlan } from './plan.js';
import type { RateStage, RateToken } from './rate.js';
import { REPLAY_NOTE, type ReplayClaim, ReplayFenceLost, type ReplayStage } from './replay.js';
import type { UnitOfWork } from './unitOfWork.js';
import type { Visibility } from './visibility.js';

/** What the pipeline is built from, once per server. */
export interface PipelineParts<TRight extends string, TServices> {
  readonly plans: ReadonlyMap<string, ToolPlan<TRight, TServices>>;
  readonly runner: Runner<TRight, TServices>;
  readonly visibility: Visibility;
  readonly rate: RateStage | undefined;
  readonly caps: ArgumentCaps;
  readonly replay: ReplayStage | undefined;
  readonly unitOfWork: UnitOfWork;
  readonly confirm: ConfirmBook | undefined;
  /** Approval by a person (I9): the tools that need one and where the person decides. */
  readonly approval: PipelineApproval | undefined;
}

/** What the pipeline needs to know of approval by a person. */
export interface PipelineApproval {
  /** Names of the tools whose actions a person approves. */
  readonly byPerson: ReadonlySet<string>;
  readonly url: (pendingActionId: string) => string;
}

/** What an approver's decision did inside the pipeline. */
export type ApprovedRun =
  | { readonly kind: 'executed'; readonly result: JsonObject }
  | { readonly kind: 'changed'; readonly content: Json; readonly contentHash: string }
  | { readonly kind: 'refused'; readonly error: ToolErrorInit };

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

/** Where a call keeps its telemetry span: a symbol, so guards never see it and copies keep it. */
const SPAN = Symbol('gatehouse.span');
const spanOf = (call: ToolCall): RequestSpan | undefined => (call as { [SPAN]?: RequestSpan })[SPAN];

/** Ends a stage with what it decided. */
type Decide<T> = (value: T, stage: StageSpan) => void;

/**
 * Runs a stage inside a span of its own: `decide` ends it from the value; a
 * thrown error ends it refused, with the error's code. No extra async frame:
 * the cost with a no-op hook is one closure and one `then` per stage.
 */
function inStage<T>(
  span: RequestSpan,
  name: StageName,
  work: () => Promise<T> | T,
  decide: Decide<T>,
): Promise<T> {
  const stage = span.stage(name);
  return Promise.resolve(work()).then(
    (value) => {
      decide(value, stage);
      return value;
    },
    (error: unknown) => {
      const code =
        error instanceof UnitRefusal ? error.error.code : ToolError.is(error) ? error.code : 'internal_error';
      stage.end('refuse', code);
      throw error;
    },
  );
}

const byRefusal: Decide<ToolErrorInit | undefined> = (refused, stage) =>
  refused ? stage.end('refuse', refused.code) : stage.end('pass');
const byOutcome: Decide<Outcome> = (outcome, stage) =>
  outcome.kind === 'refused' ? stage.end('refuse', outcome.error.code) : stage.end('pass');
const passed: Decide<unknown> = (_value, stage) => stage.end('pass');
const byClaim: Decide<Awaited<ReturnType<ReplayStage['claim']>>> = (decision, stage) => {
  if (decision.kind !== 'answer') stage.end('pass');
  else if (decision.outcome.kind === 'refused') stage.end('refuse', decision.outcome.error.code);
  else stage.end('replay');
};
const byToken: Decide<RateToken | ToolErrorInit> = (taken, stage) =>
  'key' in taken ? stage.end('pass') : stage.end('refuse', taken.code);

/** A refusal thrown inside a unit of work, so it rolls back; turned back into an outcome outside. */
class UnitRefusal extends Error {
  constructor(readonly error: ToolErrorInit) {
    super(error.message);
  }
}

/** Thrown inside the confirm unit when the content changed since the preview (or since a person saw it). */
class ContentChanged extends Error {
  constructor(
    readonly content?: Json,
    readonly contentHash?: string,
  ) {
    super('The content changed.');
  }
}

const NOT_SERVED = (tool: string): ToolErrorInit => ({
  code: 'not_found',
  message: `The tool ${tool} is no longer served.`,
  fix: 'Call tools/list.',
});

const DECIDED: ToolErrorInit = {
  code: 'confirm_used',
  message: 'This action was already decided, or is being decided by another request.',
  fix: 'Reload the page to see where it stands.',
};

const unknownTool = (name: string): ToolErrorInit => ({
  code: 'unknown_tool',
  message: `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`,
  fix: 'Call tools/list to see the tools available to this connection.',
});

const isToken = (taken: RateToken | ToolErrorInit): taken is RateToken => 'key' in taken;

/** How many times a unit of work runs when the database rolls it back for a conflict (a serialization failure, a deadlock). */
export const UNIT_ATTEMPTS = 3;

/** A short random pause before a unit runs again, so the transactions that conflicted drift apart. */
const backOff = () => new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));

/** Failures after which a claim is given back and its token kept: the store was down, or the commit's fate is unknown (I9). */

/** Builds the pipeline of one server. */
export function createPipeline<TRight extends string, TServices>(parts: PipelineParts<TRight, TServices>) {
  const { plans, runner, visibility, rate, caps, replay, unitOfWork, confirm, approval } = parts;

  const callOf = (
    plan: ToolPlan<TRight, TServices>,
    connection: Connection,
    read: { input: unknown; own: JsonObject; guardArguments: ToolCall['guardArguments'] },
    facts: CallFacts,
    notes: string[],
  ): ToolCall => {
    let signal = facts.signal;
    const call: ToolCall & { [SPAN]?: RequestSpan } = {
      tool: plan.tool,
      connection,
      input: read.input,
      arguments: read.own,
      guardArguments: read.guardArguments,
      note: (text) => notes.push(text),
      requestId: facts.requestId,
      correlationId: facts.correlationId,
      now: runner.clock(),
      // Made on first use: most calls never read it, and a controller per call is measurable.
      get signal() {
        signal ??= new AbortController().signal;
        return signal;
      },
    };
    if (facts.span) call[SPAN] = facts.span;
    return call;
  };

  /** Step 4: the stateless guards, in order; the first refusal wins. */
  async function callGuards(
    plan: ToolPlan<TRight, TServices>,
    call: ToolCall,
  ): Promise<ToolErrorInit | undefined> {
    const span = spanOf(call);
    for (const guard of plan.callGuards) {
      if (!guard.check) continue;
      const check = guard.check;
      const refused = span
        ? await inStage(span, `guard ${guard.name}`, () => check(call), byRefusal)
        : await check(call);
      if (refused) return refused;
    }
    return undefined;
  }

  /** The check-then-act guards on the call's services (outward ports closed). */
  async function unitGuards(
    plan: ToolPlan<TRight, TServices>,
    call: ToolCall,
    scope: CallServices<TRight, TServices>,
    unit?: { readonly handle: unknown },
  ): Promise<ToolErrorInit | undefined> {
    scope.enter('check');
    const lock = unitOfWork.serialize?.bind(unitOfWork);
    const serialize = unit && lock ? (key: string) => lock(unit.handle, key) : undefined;
    const span = spanOf(call);
    for (const guard of plan.unitGuards) {
      const check = () =>
        guard.check({
          tool: call.tool,
          connection: call.connection,
          input: call.input,
          guardArguments: call.guardArguments,
          now: call.now,
          note: call.note,
          services: scope.services,
          serialize,
        });
      const refused = span ? await inStage(span, `guard ${guard.name}`, check, byRefusal) : await check();
      scope.assertClean(plan.tool);
      if (refused) return refused;
    }
    return undefined;
  }

  /** A port violation's audit row, written on its own after the unit of work rolled back (I8). */
  async function recordViolation(call: ToolCall, scope: CallServices<TRight, TServices> | undefined) {
    const note = scope?.violationNote();
    if (!note) return;
    try {
      await appendAudit(runner, call.connection, {
        action: call.tool.name,
        outcome: 'violation',
        objectIds: [],
        note,
      });
    } catch (error) {
      runner.report(error, call.correlationId);
    }
  }

  /**
   * Whether a unit that the database rolled back for a conflict may run
   * again: attempts are left, the failed one reached no port that may act
   * outside the transaction, and the call's replay claim is still its own.
   */
  async function mayRunAgain(
    error: unknown,
    attempt: number,
    scope: CallServices<TRight, TServices> | undefined,
    claim: ReplayClaim | undefined,
  ): Promise<boolean> {
    if (!TransactionConflict.is(error) || attempt >= UNIT_ATTEMPTS || scope?.reachedPort) return false;
    return !claim || !replay || (await replay.held(claim));
  }

  /**
   * Runs `work` in a unit of work; a refusal thrown inside comes back as an
   * outcome after the rollback. A unit the database rolled back for a
   * conflict runs again (see {@link mayRunAgain}), its notes as before it ran.
   */
  async function inUnit(
    call: ToolCall,
    work: (unit: unknown) => Promise<Outcome>,
    scopeOf: () => CallServices<TRight, TServices> | undefined,
    again: { readonly claim?: ReplayClaim | undefined; readonly notes?: string[] } = {},
  ): Promise<Outcome> {
    const span = spanOf(call);
    for (let attempt = 1; ; attempt++) {
      const noted = again.notes?.length ?? 0;
      try {
        return span
          ? await inStage(span, 'unit_of_work', () => unitOfWork.run(work), byOutcome)
          : await unitOfWork.run(work);
      } catch (error) {
        if (await mayRunAgain(error, attempt, scopeOf(), again.claim)) {
          if (again.notes) again.notes.length = noted;
          await backOff();
          continue;
        }
        await recordViolation(call, scopeOf());
        if (error instanceof UnitRefusal) return refuse(error.error);
        throw error;
      }
    }
  }

  async function read(plan: ToolPlan<TRight, TServices>, call: ToolCall): Promise<Outcome> {
    const scope = plan.tool.runtime.run
      ? new CallServices(runner, plan.tool, call.connection as Connection<TRight>, undefined)
      : undefined;
    try {
      const data = await runTool(runner, plan.tool, call, scope);
      return { kind: 'result', data, objectIds: objectIdsOf(data) };
    } catch (error) {
      await recordViolation(call, scope);
      throw error;
    }
  }

  async function preview(plan: ToolPlan<TRight, TServices>, call: ToolCall): Promise<Outcome> {
    if (!confirm) throw new Error('An outward tool without the confirm flow.');
    const scope = new CallServices(runner, plan.tool, call.connection as Connection<TRight>, undefined);
    try {
      const refused = await unitGuards(plan, call, scope);
      if (refused) return refuse(refused);
      const prepared = await prepareTool(plan.tool, call, scope);
      const person = approval?.byPerson.has(plan.tool.name) ? approval : undefined;
      return {
        kind: 'preview',
        preview: await confirm.insert(plan.tool, call, prepared, contentDigest(prepared.content), person),
      };
    } catch (error) {
      await recordViolation(call, scope);
      throw error;
    }
  }

  /**
   * The replay claim around a write or a confirmation (I10): a hit answers
   * at once and gives the rate token back; otherwise `body` runs with the
   * claim, which it completes inside its unit of work; any other ending
   * releases the claim so a retry runs. A call whose lease ran out and was
   * taken over by an identical call answers as fenced out, whatever its own
   * unit decided: a `duplicate` or `version_conflict` it found may be the
   * other call's work, which a retry returns as a replay.
   */
  async function claimed(
    call: ToolCall,
    token: RateToken | undefined,
    body: (claim: ReplayClaim | undefined) => Promise<Outcome>,
  ): Promise<Outcome> {
    if (!replay) return body(undefined);
    const span = spanOf(call);
    const decision = span
      ? await inStage(span, 'replay', () => replay.claim(call), byClaim)
      : await replay.claim(call);
    if (decision.kind === 'answer') {
      if (decision.outcome.kind === 'result' && token && rate) await rate.refund(token);
      return decision.outcome;
    }
    const stop = replay.keepAlive(decision.claim);
    let outcome: Outcome | undefined;
    try {
      outcome = await body(decision.claim);
      if (outcome.kind === 'refused' && !(await replay.held(decision.claim)))
        throw new ReplayFenceLost(call.tool.name);
      return outcome;
    } catch (error) {
      // an unknown outcome may be this call's own commit: the retry it asks for finds the record
      if (error instanceof ReplayFenceLost || (ToolError.is(error) && error.code === 'outcome_unknown'))
        throw error;
      if (await replay.held(decision.claim)) throw error;
      if (!ToolError.is(error)) runner.report(error, call.correlationId);
      throw new ReplayFenceLost(call.tool.name);
    } finally {
      stop();
      if (outcome?.kind !== 'result') await replay.release(decision.claim);
    }
  }

  /** Inside the unit: audit row, then the replay completion (only while its fence is current). */
  async function finish(
    call: ToolCall,
    claim: ReplayClaim | undefined,
    action: string,
    data: JsonObject,
    kept: JsonObject,
    note: string | undefined,
    unit: unknown,
  ): Promise<string[]> {
    const objectIds = objectIdsOf(data);
    await appendAudit(runner, call.connection, { action, outcome: 'ok', objectIds, note }, unit);
    if (claim && replay) await replay.complete(claim, call.tool.name, kept, unit);
    return objectIds;
  }

  function write(
    plan: ToolPlan<TRight, TServices>,
    call: ToolCall,
    notes: string[],
    claim: ReplayClaim | undefined,
  ) {
    let scope: CallServices<TRight, TServices> | undefined;
    return inUnit(
      call,
      async (unit) => {
        if (plan.tool.runtime.run)
          scope = new CallServices(runner, plan.tool, call.connection as Connection<TRight>, unit);
        if (scope) {
          const refused = await unitGuards(plan, call, scope, { handle: unit });
          if (refused) throw new UnitRefusal(refused);
        }
        const data = await runTool(runner, plan.tool, call, scope, unit);
        const note = notes.join('; ') || undefined;
        const objectIds = await finish(
          call,
          claim,
          plan.tool.name,
          data,
          plan.tool.forReplay(data),
          note,
          unit,
        );
        return { kind: 'result', data, objectIds };
      },
      () => scope,
      { claim, notes },
    );
  }

  /** `confirm_action` (I9): the checks in the order of the I9 table, then the action through the same stages. */
  async function confirmCall(
    call: ToolCall,
    notes: string[],
    claim: ReplayClaim | undefined,
  ): Promise<Outcome> {
    if (!confirm) throw new Error('confirm_action without the confirm flow.');
    const { confirm_token: token, confirm_summary: summary } = call.input as {
      confirm_token: string;
      confirm_summary: string;
    };
    const span = spanOf(call);
    const found = span
      ? await inStage(span, 'confirm', () => confirm.find(token, call), passed)
      : await confirm.find(token, call);
    if (found.approval === 'person') {
      // no model call completes a person's action: it learns the outcome, nothing runs here
      const answer = await confirm.personAnswer(found, approval?.url ?? (() => ''));
      if (answer.kind === 'result' && claim && replay) await replay.release(claim);
      return answer;
    }
    const action = span
      ? await inStage(span, 'confirm', () => confirm.claim(found, summary), passed)
      : await confirm.claim(found, summary);
    const stop = confirm.keepAlive(action);
    try {
      return await confirmClaimed(action, call, notes, claim);
    } finally {
      stop();
    }
  }

  /**
   * Closes a claimed action after a refusal (I9): an outage (a switch or a
   * store that could not be read) releases the claim and keeps the token, so
   * the same confirmation works once the store is back; any other refusal
   * kills it.
   */
  async function closeRefused(action: ClaimedAction, error: ToolErrorInit): Promise<void> {
    if (!confirm) return;
    if (isOutageCode(error.code)) await confirm.release(action);
    else await confirm.kill(action);
  }

  /**
   * Runs a claimed pending action (I9), for `confirm_action` and a person's
   * approval alike: in one unit of work its unit guards, a fresh preparation
   * compared with `shownHash` (what the model or the person saw; a
   * difference throws {@link ContentChanged} with the new content), the
   * tool's run, the executed mark `markExecuted` makes (fenced to this
   * claim), and the audit row with `note`, the replay completion of `claim`
   * in the same unit. A refusal comes back as an outcome after the rollback.
   */
  function executePending(
    plan: ToolPlan<TRight, TServices>,
    target: ToolCall,
    action: ClaimedAction,
    run: {
      readonly shownHash: string;
      readonly note: string;
      readonly markExecuted: (unit: unknown, kept: JsonObject) => Promise<void>;
      readonly audited?: ToolCall;
      readonly claim?: ReplayClaim | undefined;
      readonly notes?: string[];
    },
  ): Promise<Outcome> {
    let scope: CallServices<TRight, TServices> | undefined;
    return inUnit(
      target,
      async (unit) => {
        scope = new CallServices(runner, plan.tool, target.connection as Connection<TRight>, unit);
        const refusedInUnit = await unitGuards(plan, target, scope, { handle: unit });
        if (refusedInUnit) throw new UnitRefusal(refusedInUnit);
        const fresh = await prepareTool(plan.tool, target, scope);
        const hash = contentDigest(fresh.content);
        if (hash !== run.shownHash) throw new ContentChanged(fresh.content, hash);
        const data = await runTool(runner, plan.tool, target, scope);
        const result = { action: action.tool, pending_action_id: action.id, result: data };
        const kept = { ...result, result: plan.tool.forReplay(data) };
        await run.markExecuted(unit, kept);
        const audited = run.audited ?? target;
        const objectIds = await finish(audited, run.claim, action.tool, data, kept, run.note, unit);
        return { kind: 'result', data: result, objectIds };
      },
      () => scope,
      run.claim || run.notes ? { claim: run.claim, notes: run.notes } : {},
    );
  }

  /** `confirm_action` once this call holds the action's claim: the standing checks again, then the unit. */
  async function confirmClaimed(
    action: ClaimedAction,
    call: ToolCall,
    notes: string[],
    claim: ReplayClaim | undefined,
  ): Promise<Outcome> {
    if (!confirm) throw new Error('confirm_action without the confirm flow.');
    const plan = plans.get(action.tool);
    if (plan?.kind !== 'preview') {
      await confirm.kill(action);
      return refuse(NOT_SERVED(action.tool));
    }
    const target: ToolCall = {
      ...call,
      tool: plan.tool,
      input: await plan.tool.runtime.input.parse(action.arguments),
      arguments: action.arguments,
      guardArguments: {},
    };
    // the switch may have turned while the action was opened: decide again, with the prepared tool
    const refused = await standing(plan, target);
    if (refused) {
      await closeRefused(action, refused);
      return refuse(refused);
    }
    try {
      const outcome = await executePending(plan, target, action, {
        shownHash: action.contentHash,
        note: [`confirmed ${action.id}`, ...notes].join('; '),
        markExecuted: (unit) => confirm.markExecuted(action, unit),
        audited: call,
        claim,
        notes,
      });
      if (outcome.kind === 'refused') await closeRefused(action, outcome.error);
      return outcome;
    } catch (error) {
      if (error instanceof ContentChanged) return changedSincePreview(plan, target, action);
      if (isOutage(error)) await confirm.release(action);
      else await confirm.kill(action).catch(() => false); // the failure is what the caller hears about
      throw error;
    }
  }

  /** `reject_action`: open the action outside any unit (refusals kill, on their own), then close it with its audit row. */
  async function rejectCall(
    call: ToolCall,
    notes: string[],
    claim: ReplayClaim | undefined,
  ): Promise<Outcome> {
    if (!confirm) throw new Error('reject_action without the confirm flow.');
    const { confirm_token: token, reason } = call.input as { confirm_token: string; reason?: string };
    const span = spanOf(call);
    const action = span
      ? await inStage(span, 'confirm', () => confirm.open(token, call), passed)
      : await confirm.open(token, call);
    if (reason) notes.push(`reason: ${oneLine(reason).slice(0, 200)}`);
    return inUnit(
      call,
      async (unit) => {
        await confirm.markRejected(action, unit);
        const data = { rejected: action.tool, pending_action_id: action.id, id: action.id };
        const objectIds = await finish(
          call,
          claim,
          call.tool.name,
          data,
          data,
          notes.join('; ') || undefined,
          unit,
        );
        return { kind: 'result', data, objectIds };
      },
      () => undefined,
    );
  }

  /** The content changed: the old token dies and a renewed preview comes back, both committed on their own. */
  async function changedSincePreview(
    plan: ToolPlan<TRight, TServices>,
    target: ToolCall,
    action: PendingAction,
  ): Promise<Outcome> {
    await confirm!.kill(action, 'superseded');
    const renewed = await preview(plan, target);
    if (renewed.kind !== 'preview') return renewed;
    return refuse({
      code: 'changed_since_preview',
      message: `What ${plan.tool.name} would send changed since the preview; nothing was sent and the old token is dead.`,
      fix: 'Review the new preview in details.preview and confirm it with its own token.',
      next: { tool: 'confirm_action', arguments: renewed.preview.next as JsonObject },
      details: { preview: renewed.preview },
    });
  }

  /** A pending action's call, made again for `connection` (the requesting credential as it stands now). */
  async function targetOf(
    plan: ToolPlan<TRight, TServices>,
    action: PendingAction,
    connection: Connection<TRight>,
  ): Promise<ToolCall> {
    const read = {
      input: await plan.tool.runtime.input.parse(action.arguments),
      own: action.arguments,
      guardArguments: {},
    };
    const facts = { requestId: undefined, signal: undefined, correlationId: newId() };
    return callOf(plan, connection, read, facts, []);
  }

  /** What confirm_action checks before the unit: visibility of it and of the target, then the target's call guards. */
  async function standing(
    plan: ToolPlan<TRight, TServices>,
    target: ToolCall,
  ): Promise<ToolErrorInit | undefined> {
    const self = plans.get('confirm_action');
    return (
      (self ? await visibility.refusal(self.tool, target.connection) : undefined) ??
      (await visibility.refusal(plan.tool, target.connection)) ??
      (await callGuards(plan, target))
    );
  }

  /**
   * A person's action prepared afresh for its approver's page, with the
   * requesting credential's live standing: what would go out if approved now.
   */
  async function prepareApproved(
    action: PendingAction,
    connection: Connection<TRight>,
  ): Promise<{ readonly content: Json; readonly contentHash: string } | { readonly error: ToolErrorInit }> {
    const plan = plans.get(action.tool);
    if (plan?.kind !== 'preview') return { error: NOT_SERVED(action.tool) };
    const target = await targetOf(plan, action, connection);
    const refused = await standing(plan, target);
    if (refused) return { error: refused };
    const scope = new CallServices(runner, plan.tool, connection, undefined);
    try {
      const refusedInUnit = await unitGuards(plan, target, scope);
      if (refusedInUnit) return { error: refusedInUnit };
      const prepared = await prepareTool(plan.tool, target, scope);
      return { content: prepared.content, contentHash: contentDigest(prepared.content) };
    } catch (error) {
      await recordViolation(target, scope);
      if (ToolError.is(error)) return { error };
      throw error;
    }
  }

  /**
   * A person's approval executes (I9): the confirm stages with the requesting
   * credential's live standing, a single-use claim, a fresh preparation
   * compared with what the person was shown, then run, executed mark with
   * the stored result, and an audit row naming the credential and the approver.
   */
  async function runApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    shownHash: string,
  ): Promise<ApprovedRun> {
    if (!confirm) throw new Error('Approval without the confirm flow.');
    const plan = plans.get(action.tool);
    if (plan?.kind !== 'preview') {
      await confirm.kill(action);
      return { kind: 'refused', error: NOT_SERVED(action.tool) };
    }
    const target = await targetOf(plan, action, connection);
    const refused = await standing(plan, target);
    if (refused) {
      // not claimed yet: an outage leaves the action as it was, any other refusal kills it
      if (!isOutageCode(refused.code)) await confirm.kill(action);
      return { kind: 'refused', error: refused };
    }
    const claimed = await confirm.claimFor(action, ['pending']);
    if (!claimed) return { kind: 'refused', error: DECIDED };
    const stop = confirm.keepAlive(claimed);
    try {
      return await approveClaimed(plan, target, claimed, approverId, shownHash);
    } finally {
      stop();
    }
  }

  /** A person's approval once it holds the action's claim: the unit, then the marks its outcome calls for. */
  async function approveClaimed(
    plan: ToolPlan<TRight, TServices>,
    target: ToolCall,
    action: ClaimedAction,
    approverId: string,
    shownHash: string,
  ): Promise<ApprovedRun> {
    if (!confirm) throw new Error('Approval without the confirm flow.');
    try {
      const outcome = await executePending(plan, target, action, {
        shownHash,
        note: `approved ${action.id} by ${approverId}`,
        markExecuted: async (unit, kept) => {
          const decidedAt = runner.clock().getTime();
          const decision = { result: kept, decidedBy: approverId, decidedAt, fence: action.fence };
          if (!(await confirm.store.transition(action.id, ['claimed'], 'executed', unit, decision)))
            throw new UnitRefusal(DECIDED);
        },
      });
      if (outcome.kind === 'refused') {
        await closeRefused(action, outcome.error);
        return { kind: 'refused', error: outcome.error };
      }
      return { kind: 'executed', result: (outcome as { data: JsonObject }).data };
    } catch (error) {
      if (error instanceof ContentChanged) {
        await confirm.release(action);
        return { kind: 'changed', content: error.content ?? null, contentHash: error.contentHash ?? '' };
      }
      if (isOutage(error)) {
        await confirm.release(action);
        return { kind: 'refused', error: error as ToolError };
      }
      await confirm.kill(action).catch(() => false);
      throw error;
    }
  }

  /**
   * A retried call with request state (2026-07-28): where the person's
   * action it names stands. The state is only an id; it is looked up and
   * must be this connection's action of this tool with these arguments, so
   * a forged or foreign one learns nothing and runs nothing.
   */
  async function retried(plan: ToolPlan<TRight, TServices>, call: ToolCall, state: string): Promise<Outcome> {
    const foreign = refuse({
      code: 'confirm_not_found',
      message: 'The request state names no pending action of this call on this connection.',
      fix: `Call ${plan.tool.name} again without request state for a new preview.`,
    });
    const find = confirm?.store.findById;
    if (!confirm || !approval || !find || state.length > 100) return foreign;
    const action = await find.call(confirm.store, state);
    const ours =
      action?.approval === 'person' &&
      action.connectionId === call.connection.connectionId &&
      action.tenantId === call.connection.tenantId &&
      action.tool === plan.tool.name &&
      action.argumentsDigest === digest(call.arguments);
    if (!action || !ours) return foreign;
    return confirm.personAnswer(action, approval.url, 'tool');
  }

  /**
   * A person's rejection: the action closes for good, with its audit row, in
   * one unit of work. It claims the action first (taking over a lapsed
   * claim), so a rejection never lands on an approval still running.
   */
  async function rejectApproved(
    action: PendingAction,
    connection: Connection<TRight>,
    approverId: string,
    reason: string | undefined,
  ): Promise<boolean> {
    if (!confirm) throw new Error('Approval without the confirm flow.');
    const claimed = await confirm.claimFor(action, ['pending']);
    if (!claimed) return false;
    const decision = { decidedBy: approverId, decidedAt: runner.clock().getTime(), fence: claimed.fence };
    const because = reason ? `; reason: ${oneLine(reason).slice(0, 200)}` : '';
    let rejected = false;
    try {
      rejected = await unitOfWork.run(async (unit) => {
        if (!(await confirm.store.transition(action.id, ['claimed'], 'rejected', unit, decision)))
          return false;
        const note = `rejected ${action.id} by ${approverId}${because}`;
        await appendAudit(
          runner,
          connection,
          { action: 'reject_action', outcome: 'ok', objectIds: [action.id], note },
          unit,
        );
        return true;
      });
      return rejected;
    } finally {
      if (!rejected) await confirm.release(claimed);
    }
  }

  /** Runs one call through every stage and returns its outcome; ToolErrors thrown anywhere are refusals. */
  async function runCall(
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    facts: CallFacts,
  ): Promise<Outcome> {
    // 1. lookup and visibility
    const plan = plans.get(name);
    if (!plan) return refuse(unknownTool(name));
    const hidden = await visibility.refusal(plan.tool, connection);
    if (hidden) {
      // a confirmation refused here (a workspace switched off) still kills its token (I9);
      // a switch that could not be read decided nothing, so the token is kept for the retry
      if (plan.kind === 'confirm' && confirm && isPlainObject(args) && !isOutageCode(hidden.code))
        await confirm.killIfOurs(args.confirm_token, { connection });
      return refuse(hidden);
    }
    // 2. rate token
    let token: RateToken | undefined;
    if (rate) {
      const take = () => rate.take(connection.connectionId, plan.bucket);
      const taken = facts.span ? await inStage(facts.span, 'rate', take, byToken) : await take();
      if (!isToken(taken)) return refuse(taken);
      token = taken;
    }
    // 3. capped arguments
    const notes: string[] = [];
    const call = callOf(plan, connection, await readArguments(plan, args, caps), facts, notes);
    // 4. call guards
    const refused = await callGuards(plan, call);
    if (refused) return refuse(refused);
    // 5. by kind
    switch (plan.kind) {
      case 'read':
        return read(plan, call);
      case 'preview':
        return facts.requestState === undefined
          ? preview(plan, call)
          : retried(plan, call, facts.requestState);
      case 'write':
        return claimed(call, token, (claim) => write(plan, call, notes, claim));
      case 'confirm':
        return claimed(call, token, (claim) => confirmCall(call, notes, claim));
      case 'reject':
        return claimed(call, token, (claim) => rejectCall(call, notes, claim));
    }
  }

  return Object.freeze({ runCall, prepareApproved, runApproved, rejectApproved });
}

export { REPLAY_NOTE };
