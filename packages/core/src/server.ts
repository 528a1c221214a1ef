import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ApprovalOptions, Approvals } from './approval.js';
import { checkApprovalSetup, createApprovals } from './approvals.js';
import { recentChangesTool } from './builtins/recentChanges.js';
import { type ConfirmOptions, confirmTools, createConfirmBook } from './confirm.js';
import type { Authenticate, Connection, GateCheck, GateRefusal, GateRequest } from './context.js';
import { type CallResult, renderOutcome } from './contract/envelope.js';
import {
  type BuildContext,
  type Conventions,
  DEFAULT_CONVENTIONS,
  type Guard,
  type Outcome,
  type PlannedTool,
  refuse,
} from './contract/guard.js';
import type { ToolDefinition, ToolListing } from './contract/tool.js';
import { EFFECT_TRAITS, isOutward, type OutwardEffect } from './effects.js';
import { ConfigurationError, isOutageCode, ToolError, type ToolErrorInit } from './errors.js';
import { newId } from './internal/ids.js';
import { type CallLogRecord, type Logger, silentLogger } from './logging.js';
import { createPipeline } from './pipeline/call.js';
import { type ArgumentCaps, argumentCaps } from './pipeline/caps.js';
import type { Runner } from './pipeline/execute.js';
import type { OutputMismatch } from './pipeline/output.js';
import { planTool, type ToolPlan } from './pipeline/plan.js';
import { type RateOptions, rateStage } from './pipeline/rate.js';
import { type ReplayOptions, replayStage } from './pipeline/replay.js';
import { checkUnitOfWork, separateCommits, type UnitOfWork } from './pipeline/unitOfWork.js';
import { createVisibility, type VisibilityRule } from './pipeline/visibility.js';
import type { PortMap, Ports } from './ports.js';
import type { AuditStore } from './storage/auditStore.js';
import type { RequestSpan, Telemetry } from './telemetry.js';

export type { HiddenReason, VisibilityRule, VisibleTool } from './pipeline/visibility.js';

/** Options of `createServer`. */
export interface ServerOptions<TRight extends string, TServices> {
  /** Server name and version, as announced to clients. */
  readonly name: string;
  readonly version: string;
  readonly tools: readonly ToolDefinition<TRight, TServices>[];
  /** Resolves credentials to connections with live rights, on every request (I4, I5). */
  readonly authenticate: Authenticate<TRight>;
  /** Checks before credentials, on every request; guards' `gate` facets run after these. */
  readonly gate?: readonly GateCheck[];
  /**
   * Server-wide guards (each applies to the effect classes it lists): their
   * `gate` facets run at admission, `connection` facets in the visibility
   * decision, and `check` in the stage each names (`call` or `unit`).
   */
  readonly guards?: readonly Guard[];
  /**
   * The naming conventions the build checks (I11), each replaceable or
   * `false`: which write tools are create tools (default `create_…`), and
   * which parameter names an update tool may not take (English notify-like
   * words by default). See {@link Conventions}.
   */
  readonly conventions?: Partial<Conventions>;
  /** Rules that hide tools by toolset, plan, …; missing rights always hide (I7). */
  readonly visibility?: readonly VisibilityRule<TRight>[];
  /** Where Gatehouse writes one line per call (pino-compatible). */
  readonly logger?: Logger;
  /** The server's clock; tests pin it. */
  readonly clock?: () => Date;
  /** Receives unexpected errors with their correlation id; the model only sees the id. */
  readonly onInternalError?: (error: unknown, correlationId: string) => void;
  /**
   * Where every MCP write is audited (I15): one row per successful write or
   * confirmed action, and one per port violation. Required when the server has
   * write or outward tools. Also serves the built-in `list_recent_changes`.
   */
  readonly audit?: AuditStore;
  /** The two-step flow for notify, wake, alert and delete tools (I9); required when the server has any. */
  readonly confirm?: ConfirmOptions;
  /**
   * Approval by a person (I9): which outward tools need one (a tool's own
   * `approval` wins over `byEffect`), the host page's URL for an action,
   * and the requesting credential's live connection.
   */
  readonly approval?: ApprovalOptions<TRight>;
  /**
   * Tracing and metrics hooks, e.g. `openTelemetry(api)` from
   * `@gatehousejs/core/otel`: a span per `tools/call` and `tools/list`, a
   * child per stage. Absent, nothing is called.
   */
  readonly telemetry?: Telemetry;
  /**
   * Replay protection of every write and confirmation (I10), a stage of
   * core's pipeline: required when the server has write or outward tools.
   */
  readonly replay?: ReplayOptions;
  /**
   * The transaction core opens around each write's execution (I10, I15):
   * required when the server has write or outward tools. SQLite and
   * PostgreSQL hosts pass `stores.unitOfWork` from `@gatehousejs/stores`; hosts whose stores commit
   * on their own declare it with `separateCommits()` (the weaker promise).
   */
  readonly unitOfWork?: UnitOfWork;
  /**
   * Rate buckets per connection and effect class (I7), taken at admission
   * before any argument work; `confirm_action`, `reject_action` and
   * `list_recent_changes` take from the read bucket; `stores` gives a bucket
   * its own store (e.g. a per-process read bucket on SQLite). No limits when absent.
   */
  readonly rate?: RateOptions;
  /**
   * Bounds on the shape of every call's arguments, checked before any schema work:
   * depth 32, 1,000 keys per object, 10,000 values, keys of 128 and strings of 65,536
   * characters by default. A breach is `invalid_arguments`; nothing runs.
   */
  readonly argumentCaps?: Partial<ArgumentCaps>;
}

/** What `createGatehouse` hands its servers: the host's services and ports, and the shared validator. */
export interface ServerInternals<TRight extends string, TServices> {
  readonly services: (connection: Connection<TRight>, ports: Ports<PortMap>, unit: unknown) => TServices;
  readonly ports: PortMap;
  readonly ajv: Ajv2020;
  /** Validates results against their `outputSchema`; never changes what it checks. */
  readonly outputAjv: Ajv2020;
}

/** Per-call options of `callTool`. */
export interface CallOptions {
  readonly requestId?: string | number | undefined;
  readonly signal?: AbortSignal | undefined;
  /**
   * The request state of a retried call (MCP 2026-07-28 multi-round-trip):
   * for a tool a person approves, the pending action's id the first round
   * returned. It is looked up and must belong to this connection, tool and
   * arguments; the retry answers where that action stands.
   */
  readonly requestState?: string | undefined;
  /** The request's span (the transport started it from `telemetry`); `callTool` ends it. */
  readonly span?: RequestSpan | undefined;
}

/** A built server: transport-neutral; the SDK adapters serve it. */
export interface GatehouseServer<TRight extends string = string> {
  readonly name: string;
  readonly version: string;
  /** The tools visible to `connection`, with precomputed schemas (I7). */
  listTools(connection: Connection<TRight>): Promise<readonly ToolListing[]>;
  /** Runs one `tools/call` through the whole pipeline and renders the envelope (I18, I19). */
  callTool(
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    options?: CallOptions,
  ): Promise<CallResult>;
  /** Resolves a credential (the host's authenticator). */
  readonly authenticate: Authenticate<TRight>;
  /** The server's `logger` (silent when none was given); transports log refusals to it. */
  readonly logger: Logger;
  /** The server's clock; the refusal log's windows run on it. */
  readonly clock?: (() => Date) | undefined;
  /** Runs the gate checks; the first refusal wins. */
  checkGate(request: GateRequest): Promise<GateRefusal | undefined>;
  /** The host page's side of approval by a person; present when a tool needs one (I9). */
  readonly approvals?: Approvals<TRight> | undefined;
  /** The server's telemetry hooks, for transports to start request spans with. */
  readonly telemetry?: Telemetry | undefined;
  /** Whether `name` is a tool this server serves (to anyone); transports report others as `(unknown)`. */
  isTool?(name: string): boolean;
  /**
   * OAuth step-up (I7): the scopes that would let `connection` call `name`
   * when the tool is listed to it but its access token's scopes do not
   * grant the tool's rights; `undefined` otherwise. HTTP transports answer
   * such a call 403 `insufficient_scope` before it reaches the pipeline.
   */
  stepUpScopes?(connection: Connection<TRight>, name: string): Promise<readonly string[] | undefined>;
}

type ToolShape = Pick<ToolDefinition, 'name' | 'effect' | 'requires' | 'guards'>;

function checkTools(
  tools: readonly ToolShape[],
  options: {
    readonly audit?: unknown;
    readonly confirm?: unknown;
    readonly replay?: unknown;
    readonly unitOfWork?: unknown;
  },
): void {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new ConfigurationError(`Tool ${tool.name} is registered twice.`);
    names.add(tool.name);
    const need = (option: string, why: string) => {
      throw new ConfigurationError(`Tool ${tool.name}: ${why}; pass createServer({ ${option} }).`);
    };
    if (EFFECT_TRAITS[tool.effect].twoStep && !options.confirm)
      need('confirm', `${tool.effect} tools need the two-step confirm flow (I9)`);
    if (tool.effect === 'read') continue;
    if (!options.audit) need('audit', 'every MCP write is audited (I15)');
    if (!options.replay) need('replay', 'every write and confirmation is replay-protected (I10)');
    if (!options.unitOfWork)
      need('unitOfWork', 'writes run in a unit of work with their audit row and replay record (I10, I15)');
  }
  for (const tool of tools) {
    const toolGate = tool.guards.find((g) => g.gate !== undefined || g.connection !== undefined);
    if (toolGate) {
      throw new ConfigurationError(
        `Tool ${tool.name}: guard ${toolGate.name} acts at admission or on the connection; install it server-wide.`,
      );
    }
  }
}

/**
 * Build-time checks across tools: each guard's `verify`, and the create rule
 * (I11): a write tool named like a create tool (`create_…` by default)
 * declares `creates`.
 */
function verifyPlans(plans: readonly ToolPlan<string, unknown>[], conventions: Conventions): void {
  const build: BuildContext = { conventions };
  const planned = new Map<string, PlannedTool>(
    plans.map((p) => [
      p.tool.name,
      {
        name: p.tool.name,
        effect: p.tool.effect,
        inputSchema: p.listing.inputSchema,
        guards: p.guardNames,
        creates: p.tool.creates !== undefined,
      },
    ]),
  );
  for (const p of plans) {
    const tool = planned.get(p.tool.name)!;
    const createTool = conventions.createTool;
    if (tool.effect === 'write' && createTool && createTool.test(tool.name) && !tool.creates) {
      throw new ConfigurationError(
        `Tool ${tool.name}: a create tool declares creates: { key, find, updateTool } (I11).`,
      );
    }
    for (const guard of [...p.callGuards, ...p.unitGuards]) guard.verify?.(tool, planned, build);
  }
}

/** The server's conventions: the defaults, each replaced by what the options give; a bad value is a configuration error. */
function conventionsOf(given: Partial<Conventions> | undefined): Conventions {
  const conventions = { ...DEFAULT_CONVENTIONS, ...given };
  for (const [name, value] of Object.entries(conventions)) {
    if (value !== false && !(value instanceof RegExp))
      throw new ConfigurationError(`createServer: conventions.${name} must be a RegExp or false.`);
  }
  return Object.freeze(conventions);
}

/** Reported to `onInternalError` when a result breaks its tool's `outputSchema`; names tool and path, never values. */
class OutputSchemaMismatch extends Error {
  override readonly name = 'OutputSchemaMismatch';
  constructor(tool: string, mismatch: OutputMismatch) {
    super(`${tool}: the result breaks its outputSchema at ${mismatch.path} (${mismatch.rule}).`);
  }
}

const internalError = (correlationId: string): ToolErrorInit => ({
  code: 'internal_error',
  message: `The server failed unexpectedly (correlation id ${correlationId}). Nothing about the cause is shown here.`,
  fix: 'Retry once; if it fails again, report the correlation id to the server operator.',
  details: { correlation_id: correlationId },
});

/** Seconds a model is told to wait before it sends a call again that met an outage (`store_unavailable`, `outcome_unknown`). */
export const OUTAGE_RETRY_SECONDS = 2;

/** An outage refusal with `details.retry_after_seconds` (unless its store gave one): it tells the model when to send the same call again. */
function withRetryHint(outcome: Outcome): Outcome {
  if (outcome.kind !== 'refused') return outcome;
  const { code, details } = outcome.error;
  if (!isOutageCode(code)) return outcome;
  if (details?.retry_after_seconds !== undefined) return outcome;
  const { message, fix, next } = outcome.error; // a ToolError's message is not enumerable: copy by name
  return refuse({
    code,
    message,
    fix,
    ...(next ? { next } : {}),
    details: { ...details, retry_after_seconds: OUTAGE_RETRY_SECONDS },
  });
}

/** Builds a transport-neutral server. Use `createGatehouse(...).createServer`, which binds the internals. */
export function createServer<TRight extends string, TServices>(
  options: ServerOptions<TRight, TServices>,
  internals: ServerInternals<TRight, TServices>,
): GatehouseServer<TRight> {
  if (typeof options.authenticate !== 'function') {
    throw new ConfigurationError(
      'createServer: authenticate is required (credentials are checked on every request).',
    );
  }
  checkTools(options.tools, options);
  if (options.unitOfWork) checkUnitOfWork(options.unitOfWork);
  const serverGuards = options.guards ?? [];
  for (const guard of serverGuards) {
    if (guard.stage === 'unit' && guard.effects?.includes('read'))
      throw new ConfigurationError(`Guard ${guard.name}: a unit guard cannot apply to read tools.`);
  }
  const caps = argumentCaps(options.argumentCaps);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => new Date());
  const gate = [...(options.gate ?? []), ...serverGuards.flatMap((g) => (g.gate ? [g.gate] : []))];
  const runner: Runner<TRight, TServices> = {
    services: internals.services,
    ports: internals.ports,
    audit: options.audit,
    clock,
    report: (error, correlationId) => options.onInternalError?.(error, correlationId),
  };
  const visibility = createVisibility(
    serverGuards.flatMap((g) => (g.connection ? [g.connection] : [])),
    options.visibility ?? [],
  );
  const unitOfWork = options.unitOfWork ?? separateCommits();
  const confirm = options.confirm
    ? createConfirmBook(options.confirm, clock, unitOfWork.maxWaitMs)
    : undefined;
  const byPerson = new Set(
    options.tools
      .filter((tool) => isOutward(tool.effect))
      .filter(
        (tool) => (tool.approval ?? options.approval?.byEffect?.[tool.effect as OutwardEffect]) === 'person',
      )
      .map((tool) => tool.name),
  );
  checkApprovalSetup(options.approval, confirm, byPerson);

  const plans = new Map<string, ToolPlan<TRight, TServices>>();
  const plan = (tool: ToolDefinition<TRight, TServices>) =>
    plans.set(tool.name, planTool(tool, serverGuards, internals.ajv, internals.outputAjv));
  options.tools.forEach(plan);
  for (const builtIn of [
    ...(confirm ? confirmTools<TRight, TServices>(internals.ajv) : []),
    ...(options.audit ? [recentChangesTool<TRight, TServices>(internals.ajv, options.audit, clock)] : []),
  ]) {
    if (plans.has(builtIn.name))
      throw new ConfigurationError(`Tool ${builtIn.name} is reserved for Gatehouse.`);
    plan(builtIn);
  }
  const ordered = [...plans.values()];
  verifyPlans(ordered as unknown as ToolPlan<string, unknown>[], conventionsOf(options.conventions));
  const pipeline = createPipeline({
    plans,
    runner,
    visibility,
    rate: options.rate ? rateStage(options.rate, clock) : undefined,
    caps,
    replay: options.replay ? replayStage(options.replay, clock, unitOfWork.maxWaitMs) : undefined,
    unitOfWork,
    confirm,
    approval: byPerson.size > 0 && options.approval ? { byPerson, url: options.approval.url } : undefined,
  });
  const approvals =
    byPerson.size > 0 && options.approval && confirm
      ? createApprovals({
          options: options.approval,
          confirm,
          tools: new Map([...plans].map(([name, { tool }]) => [name, tool])),
          byPerson,
          runner: pipeline,
          clock,
          onDecision: options.telemetry?.approval?.bind(options.telemetry),
        })
      : undefined;

  const logCall = (record: CallLogRecord) => {
    if (record.outcome === 'internal_error') logger.error(record, 'tools/call failed');
    else logger.info(record, 'tools/call');
  };

  const built: GatehouseServer<TRight> = {
    name: options.name,
    version: options.version,
    authenticate: options.authenticate,
    logger,
    clock,
    approvals,
    telemetry: options.telemetry,
    isTool: (name) => plans.has(name),
    async stepUpScopes(connection, name) {
      const planned = plans.get(name);
      return planned ? visibility.stepUp(planned.tool, connection) : undefined;
    },
    async listTools(connection) {
      return (await visibility.visible(ordered, connection)).map((p) => p.listing);
    },
    async callTool(connection, name, args, callOptions = {}) {
      const started = performance.now();
      const correlationId = newId();
      let outcome: Outcome;
      let failed = false;
      try {
        outcome = await pipeline.runCall(connection, name, args, {
          requestId: callOptions.requestId,
          signal: callOptions.signal,
          correlationId,
          requestState: callOptions.requestState,
          span: callOptions.span,
        });
      } catch (error) {
        if (ToolError.is(error)) {
          outcome = refuse(error);
        } else {
          failed = true;
          options.onInternalError?.(error, correlationId);
          outcome = refuse(internalError(correlationId));
        }
      }
      outcome = withRetryHint(outcome);
      let rendered = renderOutcome(outcome);
      // I19: what goes on the wire matches the advertised outputSchema, or is an internal error.
      const mismatch = plans.get(name)?.checkOutput(rendered.structuredContent);
      if (mismatch) {
        failed = true;
        logger.error(
          {
            event: 'tools/call',
            tool: name,
            path: mismatch.path,
            rule: mismatch.rule,
            correlation_id: correlationId,
          },
          'result does not match the outputSchema',
        );
        options.onInternalError?.(new OutputSchemaMismatch(name, mismatch), correlationId);
        outcome = refuse(internalError(correlationId));
        rendered = renderOutcome(outcome);
      }
      const kind = failed
        ? 'internal_error'
        : outcome.kind === 'result'
          ? outcome.replayed
            ? 'replayed'
            : 'ok'
          : outcome.kind;
      callOptions.span?.end({
        outcome: kind === 'preview' && rendered.structuredContent?.approval === 'person' ? 'approval' : kind,
        code: outcome.kind === 'refused' ? outcome.error.code : undefined,
        correlationId,
        confirmed: name === 'confirm_action' && kind === 'ok',
        tenantId: connection.tenantId,
        connectionId: connection.connectionId,
      });
      if (logger !== silentLogger)
        logCall({
          event: 'tools/call',
          tool: plans.has(name) ? name : '(unknown)',
          outcome: kind,
          ...(outcome.kind === 'refused' ? { code: outcome.error.code } : {}),
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
          correlation_id: correlationId,
          connection_id: connection.connectionId,
          tenant_id: connection.tenantId,
          ...(outcome.kind === 'result' && outcome.objectIds?.length
            ? { object_ids: outcome.objectIds }
            : {}),
        });
      return rendered;
    },
    async checkGate(request) {
      for (const check of gate) {
        const refusal = await check(request);
        if (refusal) return refusal;
      }
      return undefined;
    },
  };
  return Object.freeze(built);
}
