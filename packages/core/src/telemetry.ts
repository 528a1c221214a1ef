/**
 * What Gatehouse tells a tracing and metrics backend, without depending on
 * one: core calls these hooks, and `@gatehousejs/core/otel` maps them to the
 * OpenTelemetry API the host passes in. Without a hook nothing is called.
 *
 * Never argument values, results, tokens or secrets: only names, codes,
 * decisions, ids the model already sees, and durations.
 */

/** One MCP request as the transport saw it. */
export interface RequestFacts {
  readonly method: 'tools/call' | 'tools/list';
  /** `tools/call`: the tool asked for; an unknown name is reported as `(unknown)`. */
  readonly tool?: string | undefined;
  /** The JSON-RPC request id. */
  readonly requestId?: string | number | undefined;
  /** The protocol revision the request was served on, e.g. `2026-07-28`. */
  readonly protocolVersion?: string | undefined;
  readonly transport: 'http' | 'stdio';
  /** W3C trace context from `params._meta`, when the client sent it. */
  readonly traceparent?: string | undefined;
  readonly tracestate?: string | undefined;
}

/** How a request ended. */
export interface RequestEnd {
  /** `preview`: an outward tool prepared; `approval`: a person must approve it first. */
  readonly outcome: 'ok' | 'replayed' | 'preview' | 'approval' | 'refused' | 'internal_error' | 'rpc_error';
  /** Refused: the Gatehouse error code (`error.type` is `tool_error`). */
  readonly code?: string | undefined;
  /** A JSON-RPC error answered instead of a result. */
  readonly rpcErrorCode?: number | undefined;
  /** The id shown to the model on an internal error, and written on the call's log line. */
  readonly correlationId?: string | undefined;
  /** `confirm_action` that executed, for the confirmations counter. */
  readonly confirmed?: boolean | undefined;
  /** The connection's tenant and credential, when known. */
  readonly tenantId?: string | undefined;
  readonly connectionId?: string | undefined;
}

/** What a stage decided. */
export type StageDecision = 'pass' | 'refuse' | 'replay';

/**
 * The stages that can take time or refuse: `rate`, `replay` (the claim),
 * `confirm` (opening a pending action), `unit_of_work`, and each guard by
 * name (`guard <name>`, e.g. `guard duplicate`, `guard version`).
 */
export type StageName = 'rate' | 'replay' | 'confirm' | 'unit_of_work' | `guard ${string}`;

/** A stage in progress. */
export interface StageSpan {
  end(decision: StageDecision, code?: string): void;
}

/** A request in progress. */
export interface RequestSpan {
  /** Starts a child stage. */
  stage(name: StageName): StageSpan;
  /** Ends the request; called exactly once. */
  end(end: RequestEnd): void;
}

/** A host's telemetry: one span per request, stages inside, and counted events. */
export interface Telemetry {
  request(facts: RequestFacts): RequestSpan;
  /** A person decided an action on the host's page (I9). */
  approval?(outcome: 'executed' | 'rejected' | 'changed' | 'refused', tool: string): void;
  /**
   * A request refused before any tool ran: at admission (401, 403, 503) or
   * as a client's protocol mistake (`step: 'request'`: 400, 413). Every one,
   * also those whose log line was suppressed.
   */
  refused?(event: {
    readonly status: number;
    readonly step: string;
    readonly transport: 'http' | 'stdio';
  }): void;
}

const NOOP_STAGE: StageSpan = Object.freeze({ end() {} });

/** A span that records nothing; what a stage gets when no telemetry is configured. */
export const NOOP_SPAN: RequestSpan = Object.freeze({
  stage: () => NOOP_STAGE,
  end() {},
});

/** A telemetry hook that records nothing (for measuring the cost of the hooks themselves). */
export const noopTelemetry: Telemetry = Object.freeze({ request: () => NOOP_SPAN });

/**
 * Starts a request's span, or returns undefined without telemetry. Its
 * `end` acts once, so a transport may end a span `callTool` already ended
 * (a JSON-RPC error after the call) without a second record.
 */
export function startRequest(telemetry: Telemetry | undefined, facts: RequestFacts): RequestSpan | undefined {
  if (!telemetry) return undefined;
  const span = telemetry.request(facts);
  let ended = false;
  return {
    stage: (name) => span.stage(name),
    end(end) {
      if (ended) return;
      ended = true;
      span.end(end);
    },
  };
}
