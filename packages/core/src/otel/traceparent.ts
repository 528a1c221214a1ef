import type { Context, OpenTelemetryApi, SpanContext } from './api.js';

/** `version-traceid-parentid-flags`, lower-case hex (W3C Trace Context level 1). */
const TRACEPARENT = /^([\da-f]{2})-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})(-.*)?$/;
const MAX_TRACESTATE = 512;

/** The W3C trace context from `params._meta`, as a propagator carrier. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

/**
 * Parses a W3C `traceparent` the way the W3C propagator does: version `ff`
 * and all-zero ids are invalid; version `00` allows no trailing fields.
 * Returns undefined for anything else.
 */
export function parseTraceparent(
  api: OpenTelemetryApi,
  traceparent: string,
  tracestate: string | undefined,
): SpanContext | undefined {
  const match = TRACEPARENT.exec(traceparent.trim());
  if (!match) return undefined;
  const [, version, traceId = '', spanId = '', flags = '00', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & api.TraceFlags.SAMPLED,
    isRemote: true,
  };
  if (!api.isSpanContextValid(spanContext)) return undefined;
  if (tracestate && tracestate.length <= MAX_TRACESTATE) {
    return { ...spanContext, traceState: api.createTraceState(tracestate) };
  }
  return spanContext;
}

/**
 * The parent a request span starts in, from the client's `traceparent` and
 * `tracestate`: first through the host's registered propagator; when that
 * yields no valid remote span context (no propagator registered, or one
 * that does not read W3C keys), by parsing the W3C `traceparent` here,
 * since `params._meta` carries exactly the W3C keys. Undefined without a
 * valid trace context.
 */
export function remoteParent(api: OpenTelemetryApi, carrier: TraceCarrier): Context | undefined {
  if (carrier.traceparent === undefined) return undefined;
  const extracted = api.propagation.extract(api.ROOT_CONTEXT, carrier);
  const viaPropagator = api.trace.getSpanContext(extracted);
  if (viaPropagator && api.isSpanContextValid(viaPropagator)) return extracted;
  const parsed = parseTraceparent(api, carrier.traceparent, carrier.tracestate);
  return parsed ? api.trace.setSpanContext(api.ROOT_CONTEXT, parsed) : undefined;
}
