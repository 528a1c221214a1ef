import type { Connection } from '../context.js';
import type { ToolCall } from '../contract/call.js';
import { type Outcome, refuse } from '../contract/outcome.js';
import type { ClaimedAction, PendingAction } from '../contract/pending.js';
import { ToolError, TransactionConflict } from '../errors.js';
import { contentDigest } from '../internal/contentDigest.js';
import type { JsonObject } from '../json.js';
import { type CallFacts, ContentChanged, merged, type RunnerParts, runCallGuards } from './calls.js';
import { ClaimLost, claimFor, completeClaim, type HeldClaim } from './claim.js';
import type { CompiledTool } from './compile.js';
import {
  type AuditEntryOf,
  appendAudit,
  CallServices,
  objectIdsOf,
  prepareTool,
  runTool,
} from './execute.js';
import type { TokenStage } from './outward.js';
import { byOutcome, byRefusal, type Trace, UnitRefusal } from './trace.js';

/** How many times a unit of work runs when the database rolls it back for a conflict (a serialization failure, a deadlock). */
export const UNIT_ATTEMPTS = 3;

/** A short random pause before a unit runs again, so the transactions that conflicted drift apart. */
const backOff = () => new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));

/** A rate token taken for the call, to give back when the call is answered without running. */
export interface TakenToken {
  refund(): Promise<void>;
}

/** How a claimed pending action runs: what was shown, how it is marked executed, and what is audited. */
export interface PendingRun {
  readonly shownHash: string;
  readonly note: string;
  readonly markExecuted: (unit: unknown, kept: JsonObject) => Promise<void>;
  readonly audited?: ToolCall;
  readonly held?: HeldClaim | undefined;
  readonly notes?: string[];
}

/**
 * The routes of the stage runner after the call guards: read, preview,
 * write, and the two built-ins of the two-step flow; and the executor of a
 * claimed pending action that `confirm_action` and a person's approval share.
 */
export function createRoutes<TRight extends string, TServices>(parts: RunnerParts<TRight, TServices>) {
  const { host, unitOfWork, guards } = parts;
  const now = () => host.clock().getTime();

  /** The check-then-act guards on the call's services (outward ports closed). */
  async function runUnitGuards(
    compiled: CompiledTool<TRight, TServices>,
    call: ToolCall,
    scope: CallServices<TRight, TServices>,
    trace: Trace,
    unit?: { readonly handle: unknown },
  ) {
    scope.enter('check');
    const lock = unitOfWork.serialize?.bind(unitOfWork);
    const serialize = unit && lock ? (key: string) => lock(unit.handle, key) : undefined;
    for (const guard of compiled.unitGuards) {
      const check = async () => {
        let decision: Awaited<ReturnType<typeof guard.check>>;
        try {
          decision = await guard.check({
            tool: call.tool,
            connection: call.connection,
            input: call.input,
            guardArguments: call.guardArguments,
            context: call.context,
            now: call.now,
            note: call.note,
            services: scope.services,
            serialize,
          });
        } catch (error) {
          throw scope.fault(error, call.correlationId);
        }
        return merged(call, guard, decision);
      };
      const refused = await trace(`guard ${guard.name}`, check, byRefusal);
      scope.assertClean(compiled.tool);
      if (refused) return refused;
    }
    return undefined;
  }

  /** A port violation's audit row, written on its own after the unit of work rolled back (I8). */
  async function recordViolation(call: ToolCall, scope: CallServices<TRight, TServices> | undefined) {
    const note = scope?.violationNote();
    if (!note) return;
    try {
      await appendAudit(host, call.connection, {
        action: call.tool.name,
        outcome: 'violation',
        objectIds: [],
        note,
      });
    } catch (error) {
      host.report(error, call.correlationId);
    }
  }

  /**
   * Whether a unit the database rolled back for a conflict may run again:
   * attempts are left, the failed one reached no port that may act outside
   * the transaction, and the call's claim is still its own.
   */
  async function mayRunAgain(
    error: unknown,
    attempt: number,
    scope: CallServices<TRight, TServices> | undefined,
    held: HeldClaim | undefined,
  ): Promise<boolean> {
    if (!TransactionConflict.is(error) || attempt >= UNIT_ATTEMPTS || scope?.reachedPort) return false;
    return !held || (await held.guard.held(held.claim));
  }

  /**
   * Runs `work` in a unit of work; a refusal thrown inside comes back as an
   * outcome after the rollback. A unit the database rolled back for a
   * conflict runs again (see {@link mayRunAgain}), its notes as before it ran.
   */
  async function inUnit(
    call: ToolCall,
    trace: Trace,
    work: (unit: unknown) => Promise<Outcome>,
    scopeOf: () => CallServices<TRight, TServices> | undefined,
    again: { readonly held?: HeldClaim | undefined; readonly notes?: string[] | undefined } = {},
  ): Promise<Outcome> {
    for (let attempt = 1; ; attempt++) {
      const noted = again.notes?.length ?? 0;
      try {
        return await trace('unit_of_work', () => unitOfWork.run(work), byOutcome);
      } catch (error) {
        if (await mayRunAgain(error, attempt, scopeOf(), again.held)) {
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

  /** Inside the unit: audit row, then the claim's completion (only while the claim is current). */
  async function finish(
    call: ToolCall,
    held: HeldClaim | undefined,
    action: string,
    data: JsonObject,
    kept: JsonObject,
    note: string | undefined,
    unit: unknown,
  ): Promise<string[]> {
    const objectIds = objectIdsOf(data);
    await appendAudit(host, call.connection, { action, outcome: 'ok', objectIds, note }, unit);
    if (held) await completeClaim(held, call.tool.name, kept, unit, host.clock().getTime());
    return objectIds;
  }

  const servicesFor = (compiled: CompiledTool<TRight, TServices>, call: ToolCall, unit: unknown) =>
    new CallServices(host, compiled.tool, call.connection as Connection<TRight>, unit);

  async function read(compiled: CompiledTool<TRight, TServices>, call: ToolCall): Promise<Outcome> {
    const scope = compiled.tool.runtime.run ? servicesFor(compiled, call, undefined) : undefined;
    try {
      const data = await runTool(host, compiled.tool, call, scope);
      return { kind: 'result', data, objectIds: objectIdsOf(data) };
    } catch (error) {
      await recordViolation(call, scope);
      throw error;
    }
  }

  /** An outward tool's first step (I9): unit guards read-only, `prepare` with ports closed, a pending action. */
  async function preview(
    compiled: CompiledTool<TRight, TServices>,
    call: ToolCall,
    trace: Trace,
  ): Promise<Outcome> {
    const outward = parts.outward;
    if (!outward) throw new Error('An outward tool without an outward guard.');
    const scope = servicesFor(compiled, call, undefined);
    try {
      const refused = await runUnitGuards(compiled, call, scope, trace);
      if (refused) return refuse(refused);
      const prepared = await prepareTool(compiled.tool, call, scope);
      const person = parts.approval?.byPerson.has(compiled.tool.name) ? parts.approval : undefined;
      return outward.preview(compiled.tool, call, prepared, contentDigest(prepared.content), person);
    } catch (error) {
      await recordViolation(call, scope);
      throw error;
    }
  }

  /**
   * The claim around a write or a confirmation (I10): a stored result
   * answers at once and gives the rate token back; otherwise `body` runs
   * holding the claim, which it completes inside its unit of work; any
   * other ending releases the claim so a retry runs. A call whose claim was
   * taken over by an identical call answers as fenced out, whatever its own
   * unit decided: what it found may be the other call's work.
   */
  async function claimed(
    call: ToolCall,
    trace: Trace,
    token: { refund(): Promise<void> } | undefined,
    body: (held: HeldClaim | undefined) => Promise<Outcome>,
  ): Promise<Outcome> {
    const guard = guards.claim;
    if (!guard) return body(undefined);
    const step = await trace(
      'replay',
      () => claimFor(guard, call, now),
      (s, stage) => {
        if ('run' in s) stage.end('pass');
        else if (s.replayed) stage.end('replay');
        else stage.end('refuse', s.answer.kind === 'refused' ? s.answer.error.code : undefined);
      },
    );
    if (!('run' in step)) {
      if (step.replayed) await token?.refund();
      return step.answer;
    }
    const held = step.run;
    const stop = guard.keepAlive(held.claim, now);
    let outcome: Outcome | undefined;
    try {
      outcome = await body(held);
      if (outcome.kind === 'refused' && !(await guard.held(held.claim))) throw new ClaimLost(call.tool.name);
      return outcome;
    } catch (error) {
      // an unknown outcome may be this call's own commit: the retry it asks for finds the record
      if (error instanceof ClaimLost || (ToolError.is(error) && error.code === 'outcome_unknown'))
        throw error;
      if (await guard.held(held.claim)) throw error;
      if (!ToolError.is(error)) host.report(error, call.correlationId);
      throw new ClaimLost(call.tool.name);
    } finally {
      stop();
      if (outcome?.kind !== 'result') await guard.release(held.claim);
    }
  }

  function write(
    compiled: CompiledTool<TRight, TServices>,
    call: ToolCall,
    trace: Trace,
    notes: string[],
    held: HeldClaim | undefined,
  ): Promise<Outcome> {
    let scope: CallServices<TRight, TServices> | undefined;
    return inUnit(
      call,
      trace,
      async (unit) => {
        if (compiled.tool.runtime.run) scope = servicesFor(compiled, call, unit);
        if (scope) {
          const refused = await runUnitGuards(compiled, call, scope, trace, { handle: unit });
          if (refused) throw new UnitRefusal(refused);
        }
        const data = await runTool(host, compiled.tool, call, scope, unit);
        const note = notes.join('; ') || undefined;
        const objectIds = await finish(
          call,
          held,
          compiled.tool.name,
          data,
          compiled.tool.forReplay(data),
          note,
          unit,
        );
        return { kind: 'result', data, objectIds };
      },
      () => scope,
      { held, notes },
    );
  }

  /**
   * Runs a claimed pending action (I9), for `confirm_action` and a person's
   * approval alike: in one unit of work its unit guards, a fresh preparation
   * compared with `run.shownHash` (what the model or the person saw; a
   * difference throws {@link ContentChanged} with the new content), the
   * tool's run, the executed mark `run.markExecuted` makes (fenced to this
   * claim), and the audit row, the claim's completion in the same unit. A
   * refusal comes back as an outcome after the rollback, with the stage
   * that refused, for the I9 table.
   */
  async function executePending(
    compiled: CompiledTool<TRight, TServices>,
    target: ToolCall,
    action: ClaimedAction,
    run: PendingRun,
    trace: Trace,
  ): Promise<{ readonly outcome: Outcome; readonly stage: TokenStage }> {
    let scope: CallServices<TRight, TServices> | undefined;
    let stage: TokenStage = 'unit';
    const outcome = await inUnit(
      target,
      trace,
      async (unit) => {
        scope = servicesFor(compiled, target, unit);
        const refusedInUnit = await runUnitGuards(compiled, target, scope, trace, { handle: unit });
        if (refusedInUnit) throw new UnitRefusal(refusedInUnit);
        const fresh = await prepareTool(compiled.tool, target, scope);
        const hash = contentDigest(fresh.content);
        if (hash !== run.shownHash) throw new ContentChanged({ content: fresh.content, contentHash: hash });
        stage = 'run';
        const data = await runTool(host, compiled.tool, target, scope);
        const result = { action: action.tool, pending_action_id: action.id, result: data };
        const kept = { ...result, result: compiled.tool.forReplay(data) };
        await run.markExecuted(unit, kept);
        const audited = run.audited ?? target;
        const objectIds = await finish(audited, run.held, action.tool, data, kept, run.note, unit);
        return { kind: 'result', data: result, objectIds };
      },
      () => scope,
      run.held || run.notes ? { held: run.held, notes: run.notes } : {},
    );
    return { outcome, stage };
  }

  /** A pending action's call, made again for `connection` (the requesting credential as it stands now). */
  async function targetOf(
    compiled: CompiledTool<TRight, TServices>,
    action: PendingAction,
    connection: Connection,
    base: Pick<ToolCall, 'requestId' | 'correlationId' | 'signal' | 'note' | 'now'>,
  ): Promise<ToolCall> {
    return {
      ...base,
      tool: compiled.guarded,
      connection,
      input: await compiled.tool.runtime.input.parse(action.arguments),
      arguments: action.arguments,
      guardArguments: {},
      context: {},
    };
  }

  /** What a confirmation checks before the unit: visibility of confirm_action and of the target, then the target's call guards. */
  async function standing(compiled: CompiledTool<TRight, TServices>, target: ToolCall, trace: Trace) {
    const self = parts.tools.get('confirm_action');
    const hidden =
      (self ? await parts.visibility.refusal(self.guarded, target.connection) : undefined) ??
      (await parts.visibility.refusal(compiled.guarded, target.connection));
    if (hidden) return { error: hidden, stage: 'visibility' as const };
    const refused = await runCallGuards(compiled, target, trace);
    return refused ? { error: refused, stage: 'call' as const } : undefined;
  }

  return Object.freeze({
    read,
    preview,
    write,
    claimed,
    inUnit,
    finish,
    executePending,
    targetOf,
    standing,
    runUnitGuards,
    recordViolation,
    servicesFor,
    /** Appends an audit row for `connection` (I15), inside `unit` when given. */
    appendAudit: (connection: Connection, entry: AuditEntryOf, unit?: unknown) =>
      appendAudit(host, connection, entry, unit),
  });
}

export type Routes<TRight extends string, TServices> = ReturnType<typeof createRoutes<TRight, TServices>>;

export type { CallFacts };
