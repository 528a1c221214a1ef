import type { Ajv2020 } from 'ajv/dist/2020.js';
import { recentChangesTool } from './builtins/recentChanges.js';
import { type ConfirmOptions, createConfirmFlow } from './confirm.js';
import type { Authenticate, Connection, GateCheck, GateRefusal, GateRequest } from './context.js';
import { EFFECT_TRAITS } from './effects.js';
import { type CallResult, renderOutcome } from './envelope.js';
import { ConfigurationError, ToolError, type ToolErrorInit } from './errors.js';
import { newId } from './internal/ids.js';
import { type CallLogRecord, type Logger, silentLogger } from './logging.js';
import { type ArgumentCaps, argumentCaps } from './pipeline/caps.js';
import { compose } from './pipeline/compose.js';
import { audit, objectIdsOf, type Runner, runTool } from './pipeline/execute.js';
import { type Guard, type Outcome, type PlannedTool, refuse, type ToolCall } from './pipeline/guard.js';
import type { OutputMismatch } from './pipeline/output.js';
import { planTool, readArguments, type ToolPlan } from './pipeline/plan.js';
import type { PortMap, Ports } from './ports.js';
import type { AuditStore } from './storage/auditStore.js';
import type { ToolDefinition, ToolListing } from './tool.js';

/** Why a tool is hidden from a connection; shown when it is called anyway (I7). */
export interface HiddenReason {
  readonly reason: string;
  /** What the caller can do about it. */
  readonly fix: string;
}

/** What a visibility rule sees of a tool. */
export type VisibleTool = Pick<ToolDefinition, 'name' | 'title' | 'effect' | 'requires'>;

/** Hides a tool from a connection (by toolset, plan, …); returns the reason, or nothing. */
export type VisibilityRule<TRight extends string> = (
  tool: VisibleTool,
  connection: Connection<TRight>,
) => HiddenReason | undefined | Promise<HiddenReason | undefined>;

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
  /** Guards around every tool call (filtered by each guard's `effects`), and their gate facets. */
  readonly guards?: readonly Guard[];
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
   * Bounds on the shape of every call's arguments, checked before any schema work:
   * depth 32, 1,000 keys per object, 10,000 values, keys of 128 and strings of 65,536
   * characters by default. A breach is `invalid_arguments`; nothing runs.
   */
  readonly argumentCaps?: Partial<ArgumentCaps>;
}

/** What `createGatehouse` hands its servers: the host's services and ports, and the shared validator. */
export interface ServerInternals<TRight extends string, TServices> {
  readonly services: (connection: Connection<TRight>, ports: Ports<PortMap>) => TServices;
  readonly ports: PortMap;
  readonly ajv: Ajv2020;
  /** Validates results against their `outputSchema`; never changes what it checks. */
  readonly outputAjv: Ajv2020;
}

/** Per-call options of `callTool`. */
export interface CallOptions {
  readonly requestId?: string | number | undefined;
  readonly signal?: AbortSignal | undefined;
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
  /** Runs the gate checks; the first refusal wins. */
  checkGate(request: GateRequest): Promise<GateRefusal | undefined>;
}

type ToolShape = Pick<ToolDefinition, 'name' | 'effect' | 'requires' | 'guards'>;

function checkTools(
  tools: readonly ToolShape[],
  options: { readonly audit?: unknown; readonly confirm?: unknown },
): void {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new ConfigurationError(`Tool ${tool.name} is registered twice.`);
    names.add(tool.name);
    if (EFFECT_TRAITS[tool.effect].twoStep && !options.confirm) {
      throw new ConfigurationError(
        `Tool ${tool.name}: ${tool.effect} tools need the two-step confirm flow; pass createServer({ confirm }) (I9).`,
      );
    }
    if (tool.effect !== 'read' && !options.audit) {
      throw new ConfigurationError(
        `Tool ${tool.name}: every MCP write is audited; pass createServer({ audit }) (I15).`,
      );
    }
  }
  for (const tool of tools) {
    const toolGate = tool.guards.find((g) => g.gate !== undefined);
    if (toolGate) {
      throw new ConfigurationError(
        `Tool ${tool.name}: guard ${toolGate.name} has a gate facet; install it server-wide.`,
      );
    }
  }
}

/**
 * Build-time checks across tools: each guard's `verify`, and the create rule
 * (I11): a write tool named `create_…` needs a duplicate guard.
 */
function verifyPlans(plans: readonly ToolPlan<string, unknown>[], serverGuards: readonly Guard[]): void {
  const planned = new Map<string, PlannedTool>(
    plans.map((p) => [
      p.tool.name,
      {
        name: p.tool.name,
        effect: p.tool.effect,
        inputSchema: p.listing.inputSchema,
        guards: [
          ...serverGuards.filter((g) => !g.effects || g.effects.includes(p.tool.effect)),
          ...p.tool.guards,
        ].map((g) => g.name),
      },
    ]),
  );
  for (const p of plans) {
    const tool = planned.get(p.tool.name)!;
    if (tool.effect === 'write' && tool.name.startsWith('create_') && !tool.guards.includes('duplicate')) {
      throw new ConfigurationError(
        `Tool ${tool.name}: a create tool needs duplicateGuard with its sibling update tool (I11).`,
      );
    }
    for (const guard of [...serverGuards, ...p.tool.guards]) {
      if (tool.guards.includes(guard.name)) guard.verify?.(tool, planned);
    }
  }
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

const missingRights = (tool: ToolShape, connection: Connection): ToolErrorInit | undefined => {
  const missing = tool.requires.filter((right) => !connection.rights.has(right));
  if (missing.length === 0) return undefined;
  return {
    code: 'missing_right',
    message: `${tool.name} requires the right${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which this connection does not hold.`,
    fix: 'Ask a workspace admin to grant the right to the token’s creator and issue a token that includes it.',
    details: { tool: tool.name, missing_rights: missing },
  };
};

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
  const serverGuards = options.guards ?? [];
  const caps = argumentCaps(options.argumentCaps);
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => new Date());
  const visibility = options.visibility ?? [];
  const gate = [...(options.gate ?? []), ...serverGuards.flatMap((g) => (g.gate ? [g.gate] : []))];
  const runner: Runner<TRight, TServices> = {
    services: internals.services,
    ports: internals.ports,
    audit: options.audit,
    clock,
    report: (error, correlationId) => options.onInternalError?.(error, correlationId),
  };

  const hiddenBecause = async (
    tool: ToolDefinition<TRight, TServices>,
    connection: Connection,
  ): Promise<ToolErrorInit | undefined> => {
    const missing = missingRights(tool, connection);
    if (missing) return missing;
    for (const rule of visibility) {
      const hidden = await rule(tool, connection as Connection<TRight>);
      if (hidden) {
        return {
          code: 'tool_hidden',
          message: `${tool.name} is hidden: ${hidden.reason}`,
          fix: hidden.fix,
          details: { tool: tool.name },
        };
      }
    }
    return undefined;
  };

  const plans = new Map<string, ToolPlan<TRight, TServices>>();
  const plan = (tool: ToolDefinition<TRight, TServices>) =>
    plans.set(tool.name, planTool(tool, serverGuards, internals.ajv, internals.outputAjv));
  options.tools.forEach(plan);
  const confirmFlow = options.confirm
    ? createConfirmFlow({
        options: options.confirm,
        runner,
        plans,
        ajv: internals.ajv,
        hiddenBecause: (tool, call) => hiddenBecause(tool, call.connection),
      })
    : undefined;
  for (const builtIn of [
    ...(confirmFlow?.tools ?? []),
    ...(options.audit ? [recentChangesTool<TRight, TServices>(internals.ajv, options.audit, clock)] : []),
  ]) {
    if (plans.has(builtIn.name))
      throw new ConfigurationError(`Tool ${builtIn.name} is reserved for Gatehouse.`);
    plan(builtIn);
  }
  const ordered = [...plans.values()];
  verifyPlans(ordered as unknown as ToolPlan<string, unknown>[], serverGuards);

  /** The innermost step: run and audit a write, run a read, or prepare an outward call. */
  const execute = async (
    tool: ToolDefinition<TRight, TServices>,
    call: ToolCall,
    notes: string[],
  ): Promise<Outcome> => {
    if (EFFECT_TRAITS[tool.effect].twoStep && confirmFlow) return confirmFlow.preview(tool, call);
    const data = await runTool(runner, tool, call);
    const objectIds = objectIdsOf(data);
    if (tool.effect !== 'read' && !tool.runtime.auditsItself) {
      await audit(runner, call, {
        action: tool.name,
        outcome: 'ok',
        objectIds,
        note: notes.join('; ') || undefined,
      });
    }
    return { kind: 'result', data, objectIds };
  };

  const pipeline = async (
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    correlationId: string,
    callOptions: CallOptions,
  ): Promise<Outcome> => {
    const found = plans.get(name);
    if (!found) {
      return refuse({
        code: 'unknown_tool',
        message: `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`,
        fix: 'Call tools/list to see the tools available to this connection.',
      });
    }
    const { tool } = found;
    const hidden = await hiddenBecause(tool, connection);
    if (hidden) return refuse(hidden);
    const { input, own, guardArguments } = await readArguments(found, args, caps);
    const notes: string[] = [];
    let signal = callOptions.signal;
    const call: ToolCall = {
      tool,
      connection,
      input,
      arguments: own,
      guardArguments,
      note: (text) => notes.push(text),
      requestId: callOptions.requestId,
      correlationId,
      now: clock(),
      // Made on first use: most calls never read it, and a controller per call is measurable.
      get signal() {
        signal ??= new AbortController().signal;
        return signal;
      },
    };
    return compose(found.chain, call, () => execute(tool, call, notes));
  };

  const logCall = (record: CallLogRecord) => {
    if (record.outcome === 'internal_error') logger.error(record, 'tools/call failed');
    else logger.info(record, 'tools/call');
  };

  const built: GatehouseServer<TRight> = {
    name: options.name,
    version: options.version,
    authenticate: options.authenticate,
    async listTools(connection) {
      const hidden = await Promise.all(ordered.map((p) => hiddenBecause(p.tool, connection)));
      return ordered.filter((_p, i) => !hidden[i]).map((p) => p.listing);
    },
    async callTool(connection, name, args, callOptions = {}) {
      const started = performance.now();
      const correlationId = newId();
      let outcome: Outcome;
      let failed = false;
      try {
        outcome = await pipeline(connection, name, args, correlationId, callOptions);
      } catch (error) {
        if (ToolError.is(error)) {
          outcome = refuse(error);
        } else {
          failed = true;
          options.onInternalError?.(error, correlationId);
          outcome = refuse(internalError(correlationId));
        }
      }
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
      logCall({
        event: 'tools/call',
        tool: plans.has(name) ? name : '(unknown)',
        outcome: failed
          ? 'internal_error'
          : outcome.kind === 'result'
            ? outcome.replayed
              ? 'replayed'
              : 'ok'
            : outcome.kind,
        ...(outcome.kind === 'refused' ? { code: outcome.error.code } : {}),
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        correlation_id: correlationId,
        connection_id: connection.connectionId,
        tenant_id: connection.tenantId,
        ...(outcome.kind === 'result' && outcome.objectIds?.length ? { object_ids: outcome.objectIds } : {}),
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
