import { ulid } from 'ulid';
import type { Authenticate, Connection, GateCheck, GateRefusal, GateRequest } from './context.js';
import { EFFECT_TRAITS, type Effect } from './effects.js';
import { type CallResult, renderOutcome } from './envelope.js';
import { ConfigurationError, ToolError, type ToolErrorInit } from './errors.js';
import { type CallLogRecord, type Logger, silentLogger } from './logging.js';
import { compose } from './pipeline/compose.js';
import { type Guard, type Outcome, refuse, type ToolCall } from './pipeline/guard.js';
import { assertJsonObject, type ToolDefinition, type ToolListing } from './tool.js';

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

function checkTools(tools: readonly { readonly name: string; readonly effect: Effect }[]): void {
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) throw new ConfigurationError(`Tool ${tool.name} is registered twice.`);
    names.add(tool.name);
    if (EFFECT_TRAITS[tool.effect].twoStep) {
      throw new ConfigurationError(
        `Tool ${tool.name}: ${tool.effect} tools need the two-step confirm flow, which this server does not install (I9).`,
      );
    }
  }
}

const internalError = (correlationId: string): ToolErrorInit => ({
  code: 'internal_error',
  message: `The server failed unexpectedly (correlation id ${correlationId}). Nothing about the cause is shown here.`,
  fix: 'Retry once; if it fails again, report the correlation id to the server operator.',
  details: { correlation_id: correlationId },
});

/** Builds a transport-neutral server. Use `createGatehouse(...).createServer`, which binds the services. */
export function createServer<TRight extends string, TServices>(
  options: ServerOptions<TRight, TServices>,
  services: (connection: Connection<TRight>) => TServices,
): GatehouseServer<TRight> {
  if (typeof options.authenticate !== 'function') {
    throw new ConfigurationError(
      'createServer: authenticate is required (credentials are checked on every request).',
    );
  }
  checkTools(options.tools);
  const tools = new Map(options.tools.map((tool) => [tool.name, tool]));
  const serverGuards = options.guards ?? [];
  const chains = new Map(
    options.tools.map((tool) => [
      tool.name,
      Object.freeze([
        ...serverGuards.filter((g) => !g.effects || g.effects.includes(tool.effect)),
        ...tool.guards,
      ]),
    ]),
  );
  const visibility = options.visibility ?? [];
  const gate = [...(options.gate ?? []), ...serverGuards.flatMap((g) => (g.gate ? [g.gate] : []))];
  for (const tool of options.tools) {
    const toolGate = tool.guards.find((g) => g.gate !== undefined);
    if (toolGate) {
      throw new ConfigurationError(
        `Tool ${tool.name}: guard ${toolGate.name} has a gate facet; install it server-wide.`,
      );
    }
  }
  const logger = options.logger ?? silentLogger;
  const clock = options.clock ?? (() => new Date());

  const hiddenBecause = async (
    tool: ToolDefinition<TRight, TServices>,
    connection: Connection<TRight>,
  ): Promise<ToolErrorInit | undefined> => {
    const missing = tool.requires.filter((right) => !connection.rights.has(right));
    if (missing.length > 0) {
      return {
        code: 'missing_right',
        message: `${tool.name} requires the right${missing.length > 1 ? 's' : ''} ${missing.join(', ')}, which this connection does not hold.`,
        fix: 'Ask a workspace admin to grant the right to the token’s creator and issue a token that includes it.',
        details: { tool: tool.name, missing_rights: missing },
      };
    }
    for (const rule of visibility) {
      const hidden = await rule(tool, connection);
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

  const execute = async (tool: ToolDefinition<TRight, TServices>, call: ToolCall): Promise<Outcome> => {
    const connection = call.connection as Connection<TRight>;
    const value = await tool.runtime.run({
      input: call.input,
      connection,
      services: services(connection),
      signal: call.signal,
      correlationId: call.correlationId,
      now: call.now,
    });
    const data = assertJsonObject(tool.name, tool.runtime.presenter.present(value, { now: clock() }));
    return { kind: 'result', data };
  };

  const pipeline = async (
    connection: Connection<TRight>,
    name: string,
    args: unknown,
    correlationId: string,
    options: CallOptions,
  ): Promise<Outcome> => {
    const tool = tools.get(name);
    if (!tool) {
      return refuse({
        code: 'unknown_tool',
        message: `There is no tool named ${JSON.stringify(name.slice(0, 64))}.`,
        fix: 'Call tools/list to see the tools available to this connection.',
      });
    }
    const hidden = await hiddenBecause(tool, connection);
    if (hidden) return refuse(hidden);
    const input = await tool.runtime.input.parse(args);
    const call: ToolCall = {
      tool,
      connection,
      input,
      requestId: options.requestId,
      correlationId,
      now: clock(),
      signal: options.signal ?? new AbortController().signal,
    };
    return compose(chains.get(name) ?? [], call, () => execute(tool, call));
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
      const hidden = await Promise.all(options.tools.map((tool) => hiddenBecause(tool, connection)));
      return options.tools.filter((_tool, i) => !hidden[i]).map((tool) => tool.listing);
    },
    async callTool(connection, name, args, callOptions = {}) {
      const started = performance.now();
      const correlationId = ulid();
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
      logCall({
        event: 'tools/call',
        tool: tools.has(name) ? name : '(unknown)',
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
        ...(outcome.kind === 'result' && outcome.objectIds ? { object_ids: outcome.objectIds } : {}),
      });
      return renderOutcome(outcome);
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
