/**
 * `@gatehousejs/core/otel`: Gatehouse's telemetry hooks mapped to
 * OpenTelemetry, following the MCP semantic conventions. The host passes its
 * own `@opentelemetry/api` module in; this entry imports its types only, so
 * nothing of OpenTelemetry loads unless the host loads it.
 */
import { ConfigurationError } from './errors.js';
import type { Context, Link, OpenTelemetryApi, Span, Tracer } from './otel/api.js';
import {
  ATTR,
  endAttributes,
  errorCodeOf,
  requestAttributes,
  spanNameOf,
  transportOf,
  UNKNOWN_TOOL,
} from './otel/attributes.js';
import { createInstruments, type Instruments, recordRequest } from './otel/instruments.js';
import { remoteParent } from './otel/traceparent.js';
import type { RequestFacts, RequestSpan, StageName, StageSpan, Telemetry } from './telemetry.js';

export type { OpenTelemetryApi } from './otel/api.js';

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /** The tracer's instrumentation scope name; default `@gatehousejs/core`. */
  readonly tracerName?: string | undefined;
  /** The meter's instrumentation scope name; default `@gatehousejs/core`. */
  readonly meterName?: string | undefined;
  /** The instrumentation scope version of both, e.g. your server's version. */
  readonly version?: string | undefined;
}

const SCOPE = '@gatehousejs/core';

/**
 * Telemetry for `createServer({ telemetry })` on the host's OpenTelemetry
 * API: one SERVER span per `tools/call` (`tools/call <tool>`) and
 * `tools/list`, parented on the client's `params._meta.traceparent`; an
 * INTERNAL span per stage with its decision; the `mcp.server.operation.duration`
 * histogram and counters of refusals, replays, previews, confirmations,
 * approvals and requests refused at admission. Records names, codes, decisions and public ids only: never
 * argument values, results, tokens or secrets. Throws a configuration error
 * when `api` is not the `@opentelemetry/api` module.
 *
 * @example
 * import * as api from '@opentelemetry/api';
 * const server = gh.createServer({ name: 'notes', version: '1.0.0', tools, authenticate, telemetry: openTelemetry(api) });
 */
export function openTelemetry(api: OpenTelemetryApi, options: OpenTelemetryOptions = {}): Telemetry {
  checkApi(api);
  const tracer = api.trace.getTracer(options.tracerName ?? SCOPE, options.version);
  const meter = api.metrics.getMeter(options.meterName ?? SCOPE, options.version);
  const instruments = createInstruments(meter);
  return {
    request: (facts) => startRequestSpan(api, tracer, instruments, facts),
    approval(outcome, tool) {
      instruments.approvals.add(1, { [ATTR.approvalOutcome]: outcome, [ATTR.toolName]: tool });
    },
    refused({ status, step, transport }) {
      instruments.admissionRefusals.add(1, {
        [ATTR.refusalStatus]: status,
        [ATTR.refusalStep]: step,
        [ATTR.transport]: transportOf(transport),
      });
    },
  };
}

function checkApi(api: OpenTelemetryApi): void {
  const ok =
    typeof api?.trace?.getTracer === 'function' &&
    typeof api.metrics?.getMeter === 'function' &&
    typeof api.propagation?.extract === 'function' &&
    api.SpanKind !== undefined;
  if (!ok) {
    throw new ConfigurationError(
      "openTelemetry(api): api is not the @opentelemetry/api module. Pass the module itself: import * as api from '@opentelemetry/api'; openTelemetry(api).",
    );
  }
}

/**
 * Starts a request's SERVER span. Parent: the client's trace context from
 * `params._meta`, with the ambient span (e.g. an HTTP server span) as a
 * link, as the conventions ask; without one, the ambient context.
 */
function startRequestSpan(
  api: OpenTelemetryApi,
  tracer: Tracer,
  instruments: Instruments,
  facts: RequestFacts,
): RequestSpan {
  const started = performance.now();
  const ambient = api.context.active();
  const remote = remoteParent(api, { traceparent: facts.traceparent, tracestate: facts.tracestate });
  const ambientSpan = api.trace.getSpanContext(ambient);
  const links: Link[] =
    remote && ambientSpan && api.isSpanContextValid(ambientSpan) ? [{ context: ambientSpan }] : [];
  const span = tracer.startSpan(
    spanNameOf(facts),
    { kind: api.SpanKind.SERVER, attributes: requestAttributes(facts), links },
    remote ?? ambient,
  );
  const inside = api.trace.setSpan(remote ?? ambient, span);
  return {
    stage: (name) => startStage(api, tracer, inside, name),
    end(end) {
      if (facts.method === 'tools/call' && end.code === 'unknown_tool') {
        span.updateName(spanNameOf(facts, end.code));
        span.setAttribute(ATTR.toolName, UNKNOWN_TOOL);
      }
      span.setAttributes(endAttributes(end));
      if (end.outcome === 'refused' || end.outcome === 'internal_error' || end.outcome === 'rpc_error') {
        const message = errorCodeOf(end);
        span.setStatus(
          message ? { code: api.SpanStatusCode.ERROR, message } : { code: api.SpanStatusCode.ERROR },
        );
      }
      span.end();
      recordRequest(instruments, facts, end, (performance.now() - started) / 1000);
    },
  };
}

function startStage(api: OpenTelemetryApi, tracer: Tracer, parent: Context, name: StageName): StageSpan {
  const span: Span = tracer.startSpan(
    `gatehouse ${name}`,
    { kind: api.SpanKind.INTERNAL, attributes: { [ATTR.stage]: name } },
    parent,
  );
  let ended = false;
  return {
    end(decision, code) {
      if (ended) return;
      ended = true;
      span.setAttribute(ATTR.decision, decision);
      if (decision === 'refuse' && code) span.setAttribute(ATTR.errorCode, code);
      span.end();
    },
  };
}
