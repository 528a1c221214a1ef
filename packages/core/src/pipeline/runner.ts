/**
 * The stage runner: every `tools/call` runs through `runCall`, top to
 * bottom, as the table below says. Core owns the order; a host's guards sit
 * in the stage of their kind, never at a position in a list.
 *
 *   (admission: admission guards, Host/Origin, credential: the transport, before this)
 *   lookup       the tool exists
 *   visibility   the visibility guards: one decision shared with tools/list (I3, I4, I6, I7)
 *   rate         a token from the rate guard's bucket, before any argument work (I7)
 *   arguments    shape caps, then guard-owned arguments, then the tool's schema (I14)
 *   call         the call guards, stateless; what they allow with becomes `context`
 *   route        read     run
 *                preview  unit guards (read-only) → prepare, outward ports closed → pending action (I9)
 *                write    claim (I10) → unit of work { unit guards → run → audit row → claim completed } (I15)
 *                confirm  claim → open the pending action → standing again → unit of work
 *                         { unit guards → fresh prepare, content check → run → executed mark → audit → claim }
 *                reject   claim → open the pending action → unit of work { rejected mark → audit → claim }
 *   then, on every outcome (the tail):
 *   hint         an outage says when to come back (`retry_after_seconds`)
 *   envelope     the structured result, preview or error (I18)
 *   output       the output guards clean what leaves (I16)
 *   schema       the result checked against the tool's outputSchema (I19)
 *   render       the text block that equals it (I19)
 *   log, span    one log line (I17) and the request's span, ended once
 *
 * A confirmation refused after its token is known is settled by the I9
 * table (`TOKEN_FATES` in outward.ts), whatever outward guard is plugged in.
 */
import type { Connection } from '../context.js';
import type { ToolCall } from '../contract/call.js';
import { type CallResult, renderStructured, structureOf } from '../contract/envelope.js';
import type { RateGuard } from '../contract/guard.js';
import { type ApprovalLink, type Outcome, refuse } from '../contract/outcome.js';
import { isOutageCode, ToolError, type ToolErrorInit } from '../errors.js';
import { isPlainObject, type JsonObject } from '../json.js';
import { type CallLogRecord, type Logger, silentLogger } from '../logging.js';
import type { RequestSpan } from '../telemetry.js';
import { type CallFacts, callOf, type RunnerParts, runCallGuards } from './calls.js';
import { type CompiledTool, readArguments } from './compile.js';
import { refusalIn } from './guardSet.js';
import { createPendingRoutes } from './pending.js';
import { createRoutes, type TakenToken } from './routes.js';
import { byRefusal, type Trace, tracer } from './trace.js';

/** A call's answer: what goes on the wire, and where a person approves it, when one must. */
export interface ToolAnswer {
  readonly result: CallResult;
  /** A person's action (I9): transports that can elicit a URL offer this page. */
  readonly approval?: ApprovalLink | undefined;
}

/** Seconds a model is told to wait before it sends a call again that met an outage (`store_unavailable`, `outcome_unknown`). */
export const OUTAGE_RETRY_SECONDS = 2;

/** One call in flight: what the stages have settled so far. */
interface Flight<TRight extends string, TServices> {
  readonly connection: Connection<TRight>;
  readonly name: string;
  readonly args: unknown;
  readonly facts: CallFacts;
  readonly trace: Trace;
  /** Public notes for the call's audit row (a `separate` reason, a rejection's reason). */
  readonly notes: string[];
  compiled?: CompiledTool<TRight, TServices>;
  token?: TakenToken;
  call?: ToolCall;
}

/** A stage answers the call (an outcome) or lets it go on (nothing). */
type Stage<TRight extends string, TServices> = (
  flight: Flight<TRight, TServices>,
) => Promise<Outcome | undefined> | Outcome | undefined;

const unknownTool = (name: string): ToolErrorInit => ({
  code: 'unknown_tool',
  message: `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`,
  fix: 'Call tools/list to see the tools available to this connection.',
});

const internalError = (correlationId: string): ToolErrorInit => ({
  code: 'internal_error',
  message: `The server failed unexpectedly (correlation id ${correlationId}). Nothing about the cause is shown here.`,
  fix: 'Retry once; if it fails again, report the correlation id to the server operator.',
  details: { correlation_id: correlationId },
});

/** Reported when a result breaks its tool's `outputSchema` or an output guard's rule; names tool and place, never values. */
class OutputRefused extends Error {
  override readonly name = 'OutputRefused';
}

/** An outage refusal with `details.retry_after_seconds` (unless its store gave one). */
function withRetryHint(outcome: Outcome): Outcome {
  if (outcome.kind !== 'refused' || !isOutageCode(outcome.error.code)) return outcome;
  const { code, message, fix, next, details } = outcome.error; // a ToolError's message is not enumerable: copy by name
  if (details?.retry_after_seconds !== undefined) return outcome;
  const error = {
    code,
    message,
    fix,
    ...(next ? { next } : {}),
    details: { ...details, retry_after_seconds: OUTAGE_RETRY_SECONDS },
  };
  return refuse(error);
}

/** What the runner reports besides outcomes: the server's logger and its internal-error hook. */
export interface RunnerReports {
  readonly logger: Logger;
  readonly report: (error: unknown, correlationId: string) => void;
}

/** Builds the stage runner of one server. */
export function createRunner<TRight extends string, TServices>(
  parts: RunnerParts<TRight, TServices>,
  reports: RunnerReports,
) {
  const { tools, visibility, guards, host } = parts;
  const routes = createRoutes(parts);
  const pending = createPendingRoutes(parts, routes);
  const { logger } = reports;

  /** The stages of a call, in order; the first that answers ends it. */
  const STAGES: readonly Stage<TRight, TServices>[] = [
    function lookup(flight) {
      flight.compiled = tools.get(flight.name);
      return flight.compiled ? undefined : refuse(unknownTool(flight.name));
    },
    async function visible(flight) {
      const { compiled, connection, args } = flight;
      const hidden = await visibility.refusal(compiled!.guarded, connection);
      if (!hidden) return undefined;
      // a confirmation refused here (a workspace switched off) settles its token by the I9 table
      if (compiled!.route === 'confirm' && parts.outward && isPlainObject(args)) {
        const token = args.confirm_token;
        const found =
          typeof token === 'string' && token.length <= 200
            ? await parts.outward.find(token, flight).catch(() => undefined)
            : undefined;
        if (found?.ok) await parts.outward.settle(found.action, 'visibility', hidden.code);
      }
      return refuse(hidden);
    },
    function rate(flight) {
      return guards.rate ? rateToken(guards.rate, flight) : undefined;
    },
    async function argumentsStage(flight) {
      const compiled = flight.compiled!;
      const read = await readArguments(compiled, flight.args, parts.caps);
      flight.call = callOf(compiled, flight.connection, read, flight.facts, flight.notes, host.clock());
      return undefined;
    },
    function call(flight) {
      if (flight.compiled!.callGuards.length === 0) return undefined;
      return runCallGuards(flight.compiled!, flight.call!, flight.trace).then((refused) =>
        refused ? refuse(refused) : undefined,
      );
    },
    function route(flight) {
      return routeOf(flight);
    },
  ];

  /** The rate stage: a token from the rate guard's bucket, kept to give back on a replay. */
  async function rateToken(
    guard: RateGuard,
    flight: Flight<TRight, TServices>,
  ): Promise<Outcome | undefined> {
    const refused = await flight.trace(
      'rate',
      async () => {
        const decision = await guard.take(flight.connection, flight.compiled!.bucket, host.clock().getTime());
        const refusal = refusalIn(guard, decision);
        if (!refusal) {
          const { token } = decision as { readonly token: unknown };
          flight.token = { refund: () => guard.refund(token, host.clock().getTime()) };
        }
        return refusal;
      },
      byRefusal,
    );
    return refused ? refuse(refused) : undefined;
  }

  /** The route stage: how the tool runs, by what it is. */
  function routeOf(flight: Flight<TRight, TServices>): Promise<Outcome> {
    const compiled = flight.compiled!;
    const call = flight.call!;
    const { trace, notes, token } = flight;
    switch (compiled.route) {
      case 'read':
        return routes.read(compiled, call);
      case 'preview':
        return flight.facts.requestState === undefined
          ? routes.preview(compiled, call, trace)
          : pending.retried(compiled, call, flight.facts.requestState);
      case 'write':
        return routes.claimed(call, trace, token, (held) => routes.write(compiled, call, trace, notes, held));
      case 'confirm':
        return routes.claimed(call, trace, token, (held) => pending.confirm(call, trace, notes, held));
      case 'reject':
        return routes.claimed(call, trace, token, (held) => pending.reject(call, trace, notes, held));
    }
  }

  /** Runs the stages; a ToolError thrown anywhere is a refusal, anything else an internal error. */
  async function through(flight: Flight<TRight, TServices>): Promise<{ outcome: Outcome; failed: boolean }> {
    try {
      for (const stage of STAGES) {
        // a stage that answers at once is not awaited: a tick per stage is measurable
        const pending = stage(flight);
        const answer = pending instanceof Promise ? await pending : pending;
        if (answer) return { outcome: answer, failed: false };
      }
      throw new Error('No stage answered the call.');
    } catch (error) {
      if (ToolError.is(error)) return { outcome: refuse(error), failed: false };
      reports.report(error, flight.facts.correlationId);
      return { outcome: refuse(internalError(flight.facts.correlationId)), failed: true };
    }
  }

  /**
   * The tail of every call: the envelope, the output guards, the
   * outputSchema (I19), the text; a result an output guard refuses or that
   * breaks its schema is reported and answered `internal_error`.
   */
  function leave(
    name: string,
    outcome: Outcome,
    correlationId: string,
  ): { structured: JsonObject; failed: boolean } {
    let structured = structureOf(outcome);
    for (const guard of guards.output) {
      const decision = guard.leave(structured, name);
      const refused = refusalIn(guard, decision);
      if (refused) {
        logger.error(
          { event: 'tools/call', tool: name, guard: guard.name, correlation_id: correlationId },
          'result refused by an output guard',
        );
        return failed(
          new OutputRefused(`${name}: output guard ${guard.name}: ${refused.message}`),
          correlationId,
        );
      }
      structured = (decision as { readonly structured: JsonObject }).structured;
    }
    const mismatch = tools.get(name)?.checkOutput(structured);
    if (!mismatch) return { structured, failed: false };
    const { path, rule } = mismatch;
    logger.error(
      { event: 'tools/call', tool: name, path, rule, correlation_id: correlationId },
      'result does not match the outputSchema',
    );
    return failed(
      new OutputRefused(`${name}: the result breaks its outputSchema at ${path} (${rule}).`),
      correlationId,
    );
  }

  /** A result that may not leave: reported by correlation id, answered `internal_error`. */
  function failed(error: OutputRefused, correlationId: string): { structured: JsonObject; failed: boolean } {
    reports.report(error, correlationId);
    return { structured: structureOf(refuse(internalError(correlationId))), failed: true };
  }

  /** The log line and the span's end, once per call. */
  function record(
    flight: Flight<TRight, TServices>,
    outcome: Outcome,
    failed: boolean,
    started: number,
  ): void {
    const kind = failed
      ? 'internal_error'
      : outcome.kind === 'result'
        ? outcome.replayed
          ? 'replayed'
          : 'ok'
        : outcome.kind;
    const { connection, name, facts } = flight;
    facts.span?.end({
      outcome: kind === 'preview' && outcome.kind === 'preview' && outcome.approval ? 'approval' : kind,
      code: outcome.kind === 'refused' ? outcome.error.code : undefined,
      correlationId: facts.correlationId,
      confirmed: name === 'confirm_action' && kind === 'ok',
      tenantId: connection.tenantId,
      connectionId: connection.connectionId,
    });
    if (logger === silentLogger) return;
    const line: CallLogRecord = {
      event: 'tools/call',
      tool: tools.has(name) ? name : '(unknown)',
      outcome: kind,
      ...(outcome.kind === 'refused' ? { code: outcome.error.code } : {}),
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      correlation_id: facts.correlationId,
      connection_id: connection.connectionId,
      tenant_id: connection.tenantId,
      ...(outcome.kind === 'result' && outcome.objectIds?.length ? { object_ids: outcome.objectIds } : {}),
    };
    if (kind === 'internal_error') logger.error(line, 'tools/call failed');
    else logger.info(line, 'tools/call');
  }

  /** Runs one call through every stage and its tail; never throws. */
  async function runCall(
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    facts: CallFacts,
  ): Promise<ToolAnswer> {
    const started = performance.now();
    const flight: Flight<TRight, TServices> = {
      connection,
      name,
      args,
      facts,
      trace: tracer(facts.span),
      notes: [],
    };
    const ran = await through(flight);
    const outcome = withRetryHint(ran.outcome);
    const left = leave(name, outcome, facts.correlationId);
    const failed = ran.failed || left.failed;
    const shown = left.failed ? refuse(internalError(facts.correlationId)) : outcome;
    record(flight, shown, failed, started);
    const result = renderStructured(left.structured, shown.kind === 'refused');
    const approval = left.failed ? undefined : outcome.kind === 'result' ? undefined : outcome.approval;
    return approval ? { result, approval } : { result };
  }

  return Object.freeze({
    runCall,
    prepareApproved: pending.prepareApproved,
    runApproved: pending.runApproved,
    rejectApproved: pending.rejectApproved,
  });
}

export type StageRunner<TRight extends string, TServices> = ReturnType<
  typeof createRunner<TRight, TServices>
>;

export type { CallFacts, RequestSpan };
