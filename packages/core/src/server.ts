import type { Ajv2020 } from 'ajv/dist/2020.js';
import { checkApprovalSetup, createApprovals } from './approvals.js';
import { confirmTools } from './builtins/confirmTools.js';
import { recentChangesTool } from './builtins/recentChanges.js';
import type { AdmissionRefusal, AdmissionRequest, Authenticate, Connection } from './context.js';
import type { ApprovalOptions, Approvals } from './contract/approval.js';
import type { BuildContext, Conventions, GuardedTool } from './contract/call.js';
import { DEFAULT_CONVENTIONS } from './contract/call.js';
import type { CallResult } from './contract/envelope.js';
import type { Guard, Lease } from './contract/guard.js';
import type { ToolDefinition, ToolListing } from './contract/tool.js';
import { isOutward, type OutwardEffect } from './effects.js';
import { ConfigurationError, isOutage, type ToolErrorInit } from './errors.js';
import { newId } from './internal/ids.js';
import type { Logger } from './logging.js';
import { silentLogger } from './logging.js';
import { type ArgumentCaps, argumentCaps } from './pipeline/caps.js';
import { type CompiledTool, compileTool } from './pipeline/compile.js';
import { type Host, hostFaults } from './pipeline/execute.js';
import { type GuardSet, guardSetOf, requireGuards } from './pipeline/guardSet.js';
import { createOutwardStage } from './pipeline/outward.js';
import { createRunner, type ToolAnswer } from './pipeline/runner.js';
import { checkUnitOfWork, separateCommits, type UnitOfWork } from './pipeline/unitOfWork.js';
import { createVisibility } from './pipeline/visibility.js';
import type { PortMap, Ports } from './ports.js';
import { type OnError, reportTo } from './serve/report.js';
import type { AuditStore } from './storage/auditStore.js';
import type { RequestSpan, Telemetry } from './telemetry.js';

export type { ToolAnswer } from './pipeline/runner.js';

/** Options of `createServer`. */
export interface ServerOptions<TRight extends string, TServices, THandle = unknown> {
  /** Server name and version, as announced to clients. */
  readonly name: string;
  readonly version: string;
  readonly tools: readonly ToolDefinition<TRight, TServices>[];
  /** Resolves credentials to connections with live rights, on every request (I4, I5). */
  readonly authenticate: Authenticate<TRight>;
  /**
   * Every guard of the server, built in or the host's own, each in the stage
   * of its kind: `standardGuards(stores, { switches })` from
   * `@gatehousejs/guards` gives the set a server needs, to which a host adds
   * its own. The build refuses a tool whose effect needs a kind the list
   * lacks (a write without a claim guard, an outward tool without an
   * outward guard, any tool without tenant, rights, kill-switch and output
   * guards), naming the factory to add.
   */
  readonly guards: readonly Guard[];
  /**
   * The naming conventions the build checks (I11), each replaceable or
   * `false`: which write tools are create tools (default `create_…`), and
   * which parameter names an update tool may not take (English notify-like
   * words by default). See {@link Conventions}.
   */
  readonly conventions?: Partial<Conventions>;
  /** Where Gatehouse writes one line per call (pino-compatible). */
  readonly logger?: Logger;
  /** The server's clock; tests pin it. */
  readonly clock?: () => Date;
  /**
   * The server's one error hook: every unexpected error, of a tool call
   * (with its `correlationId`, the only thing the model saw) and of every
   * transport serving it (`transport`), as `kind: 'fault'`, or
   * `kind: 'outage'` when a store admission reads failed or was too slow
   * (the client got a 503). Reporting only: the client gets a generic
   * answer. `errorLog(logger)` writes these as log lines.
   */
  readonly onError?: OnError;
  /**
   * Where every MCP write is audited (I15): one row per successful write or
   * confirmed action, and one per port violation. Required when the server has
   * write or outward tools. Also serves the built-in `list_recent_changes`.
   */
  readonly audit?: AuditStore;
  /**
   * Tracing and metrics hooks, e.g. `openTelemetry(api)` from
   * `@gatehousejs/core/otel`: a span per `tools/call` and `tools/list`, a
   * child per stage. Absent, nothing is called.
   */
  readonly telemetry?: Telemetry;
  /**
   * The transaction core opens around each write's execution (I10, I15):
   * required when the server has write or outward tools. SQLite and
   * PostgreSQL hosts pass `stores.unitOfWork` from `@gatehousejs/stores`;
   * hosts whose stores commit on their own declare it with
   * `separateCommits()` (the weaker promise). Its handle is the one the
   * host's `services` take (bound at `createGatehouse`): another is a compile error.
   */
  readonly unitOfWork?: UnitOfWork<THandle>;
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
  /** Property names refused as tenant selectors (I3), squashed; the tenant guard checks every advertised input. */
  readonly tenantLikeNames: ReadonlySet<string>;
  /** The host's mapping of its own errors to tool errors (`createGatehouse({ toolError })`). */
  readonly toolError?: ((error: unknown) => ToolErrorInit | undefined) | undefined;
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
  /** Runs one `tools/call` through every stage and renders the envelope (I18, I19). Never throws. */
  callTool(
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    options?: CallOptions,
  ): Promise<CallResult>;
  /** {@link callTool}, with where a person approves the call's action when one must: what transports use. */
  answer(
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    options?: CallOptions,
  ): Promise<ToolAnswer>;
  /** Resolves a credential (the host's authenticator). */
  readonly authenticate: Authenticate<TRight>;
  /** The server's `logger` (silent when none was given); transports log refusals to it. */
  readonly logger: Logger;
  /** The server's clock; the refusal log's windows run on it. */
  readonly clock?: (() => Date) | undefined;
  /** The server's error hook (`createServer({ onError })`); transports report to it. */
  readonly onError?: OnError | undefined;
  /** Runs the admission guards on a request's headers; the first refusal wins. */
  admit(request: AdmissionRequest): Promise<AdmissionRefusal | undefined>;
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

/** Options that became guards, with the factory that replaces each. */
const MOVED_TO_GUARDS: Readonly<Record<string, string>> = {
  onInternalError: 'onError(error, { kind, correlationId }) (one hook for calls and transports)',
  replay: 'replayGuard({ store })',
  confirm: 'confirmGuard({ store })',
  approval: 'confirmGuard({ store, approval })',
  rate: 'rateGuard({ store, limits })',
  gate: 'an admission guard',
  visibility: 'visibility guards (toolsetVisibility(…), planVisibility(…))',
};

/** Refuses what a server cannot be built from, before anything is compiled. */
function checkOptions(options: ServerOptions<string, unknown>): void {
  if (typeof options.authenticate !== 'function') {
    throw new ConfigurationError(
      'createServer: authenticate is required (credentials are checked on every request).',
    );
  }
  for (const [option, factory] of Object.entries(MOVED_TO_GUARDS)) {
    if ((options as unknown as Record<string, unknown>)[option] !== undefined)
      throw new ConfigurationError(
        option === 'onInternalError'
          ? `createServer: onInternalError is now ${factory}.`
          : `createServer: ${option} is now a guard: pass ${factory} from @gatehousejs/guards in guards (standardGuards(stores, { switches }) gives them all).`,
      );
  }
  const names = new Set<string>();
  for (const tool of options.tools) {
    if (names.has(tool.name)) throw new ConfigurationError(`Tool ${tool.name} is registered twice.`);
    names.add(tool.name);
    if (tool.effect === 'read') continue;
    if (!options.audit)
      throw new ConfigurationError(
        `Tool ${tool.name}: every MCP write is audited (I15); pass createServer({ audit }).`,
      );
    if (!options.unitOfWork)
      throw new ConfigurationError(
        `Tool ${tool.name}: writes run in a unit of work with their audit row and claim (I10, I15); pass createServer({ unitOfWork }).`,
      );
  }
}

/**
 * Checks a claim's lease against its renewal interval and the unit of
 * work's longest wait: a renewal started on time that waits its longest
 * for a connection or a lock must still land before the lease lapses.
 */
function checkLease(who: string, lease: Lease, maxWaitMs = 0): void {
  if (lease.leaseMs <= lease.renewMs + maxWaitMs) {
    throw new ConfigurationError(
      `createServer: the ${who} guard's leaseMs (${lease.leaseMs} ms) must exceed its renewMs (${lease.renewMs} ms) plus the unit of work's longest wait for a connection or lock (maxWaitMs, ${maxWaitMs} ms), or a renewal that waits its longest lands after the lease lapsed. Raise leaseMs, or lower renewMs or the wait.`,
    );
  }
}

/**
 * Build-time checks across tools: every guard's `verify` (the tools' own,
 * server-wide ones for their effect, the visibility guards on every tool),
 * and the create rule (I11): a write tool named like a create tool
 * (`create_…` by default) carries a duplicate guard.
 */
function verifyTools(
  compiled: readonly CompiledTool<string, unknown>[],
  visibilityGuards: readonly Guard[],
  build: BuildContext,
): void {
  const planned = new Map<string, GuardedTool>(compiled.map((c) => [c.tool.name, c.guarded]));
  for (const c of compiled) {
    const tool = c.guarded;
    const createTool = build.conventions.createTool;
    if (tool.effect === 'write' && createTool && createTool.test(tool.name) && !tool.creates) {
      throw new ConfigurationError(
        `Tool ${tool.name}: a create tool carries a duplicate guard: guards: (g) => [g.duplicate({ key, find, updateTool })] (I11).`,
      );
    }
    for (const guard of [...c.callGuards, ...c.unitGuards, ...visibilityGuards])
      (guard as { verify?: (t: GuardedTool, all: typeof planned, b: BuildContext) => void }).verify?.(
        tool,
        planned,
        build,
      );
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

/** The outward tools a person approves: a tool's own `approval`, else the outward guard's policy for its class. */
function approvedByPerson(
  tools: readonly ToolDefinition<string, unknown>[],
  byEffect: Partial<Record<OutwardEffect, string>> | undefined,
) {
  return new Set(
    tools
      .filter((tool) => isOutward(tool.effect))
      .filter((tool) => (tool.approval ?? byEffect?.[tool.effect as OutwardEffect]) === 'person')
      .map((tool) => tool.name),
  );
}

/** Builds a transport-neutral server. Use `createGatehouse(...).createServer`, which binds the internals. */
export function createServer<TRight extends string, TServices, THandle = unknown>(
  options: ServerOptions<TRight, TServices, THandle>,
  internals: ServerInternals<TRight, TServices>,
): GatehouseServer<TRight> {
  checkOptions(options as unknown as ServerOptions<string, unknown>);
  const unitOfWork = (options.unitOfWork ?? separateCommits()) as UnitOfWork;
  if (options.unitOfWork) checkUnitOfWork(options.unitOfWork);
  const set = guardSetOf(options.guards);
  requireGuards(options.tools, set);
  if (set.claim) checkLease('claim', set.claim.lease, unitOfWork.maxWaitMs);
  if (set.outward) checkLease('outward', set.outward.lease, unitOfWork.maxWaitMs);
  const caps = argumentCaps(options.argumentCaps);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => new Date());
  const report = (error: unknown, correlationId: string) =>
    reportTo(options.onError, error, { kind: isOutage(error) ? 'outage' : 'fault', correlationId });
  const host: Host<TRight, TServices> = {
    services: internals.services,
    ports: internals.ports,
    audit: options.audit,
    clock,
    report,
    fault: hostFaults(internals.toolError, report),
  };
  const outward = set.outward ? createOutwardStage(set.outward, clock) : undefined;
  const approvalOptions = set.outward?.approval as ApprovalOptions<TRight> | undefined;
  const byPerson = approvedByPerson(
    options.tools as unknown as readonly ToolDefinition<string, unknown>[],
    approvalOptions?.byEffect,
  );
  checkApprovalSetup(approvalOptions, set.outward, byPerson);

  const tools = new Map<string, CompiledTool<TRight, TServices>>();
  const compile = (tool: ToolDefinition<TRight, TServices>) =>
    tools.set(tool.name, compileTool(tool, set, internals.ajv, internals.outputAjv));
  options.tools.forEach(compile);
  for (const builtIn of [
    ...(outward ? confirmTools<TRight, TServices>(internals.ajv) : []),
    ...(options.audit ? [recentChangesTool<TRight, TServices>(internals.ajv, options.audit, clock)] : []),
  ]) {
    if (tools.has(builtIn.name))
      throw new ConfigurationError(`Tool ${builtIn.name} is reserved for Gatehouse.`);
    compile(builtIn);
  }
  const ordered = [...tools.values()];
  const build: BuildContext = {
    conventions: conventionsOf(options.conventions),
    tenantLikeNames: internals.tenantLikeNames,
  };
  verifyTools(
    ordered as unknown as CompiledTool<string, unknown>[],
    set.visibility as readonly Guard[],
    build,
  );
  const visibility = createVisibility(set.visibility as Parameters<typeof createVisibility>[0]);
  const runner = createRunner(
    {
      tools,
      host,
      guards: set as GuardSet<TRight>,
      visibility,
      caps,
      unitOfWork,
      outward,
      approval: byPerson.size > 0 && approvalOptions ? { byPerson, url: approvalOptions.url } : undefined,
    },
    { logger, report },
  );
  const approvals =
    byPerson.size > 0 && approvalOptions && outward
      ? createApprovals({
          options: approvalOptions,
          outward,
          tools: new Map([...tools].map(([name, { tool }]) => [name, tool])),
          byPerson,
          runner,
          clock,
          onDecision: options.telemetry?.approval?.bind(options.telemetry),
        })
      : undefined;

  const answer = (
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    callOptions: CallOptions = {},
  ) =>
    runner.runCall(connection, name, args, {
      requestId: callOptions.requestId,
      signal: callOptions.signal,
      correlationId: newId(),
      requestState: callOptions.requestState,
      span: callOptions.span,
    });

  const built: GatehouseServer<TRight> = {
    name: options.name,
    version: options.version,
    authenticate: options.authenticate,
    logger,
    clock,
    approvals,
    telemetry: options.telemetry,
    onError: options.onError,
    isTool: (name) => tools.has(name),
    async stepUpScopes(connection, name) {
      const compiled = tools.get(name);
      return compiled ? visibility.stepUp(compiled.guarded, connection) : undefined;
    },
    async listTools(connection) {
      return (await visibility.visible(ordered, connection)).map((c) => c.listing);
    },
    answer,
    async callTool(connection, name, args, callOptions) {
      return (await answer(connection, name, args, callOptions)).result;
    },
    async admit(request) {
      for (const guard of set.admission) {
        const decision = await guard.admit(request);
        if (decision?.ok === true) continue;
        if (decision?.ok === false) {
          const { ok: _ok, ...refusal } = decision;
          return refusal;
        }
        throw new Error(`Admission guard ${guard.name} returned no decision.`);
      }
      return undefined;
    },
  };
  return Object.freeze(built);
}
