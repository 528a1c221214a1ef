import type * as OtelApi from '@opentelemetry/api';

/**
 * The parts of the host's `@opentelemetry/api` module Gatehouse uses. The
 * host passes the module in (`import * as api from '@opentelemetry/api'`),
 * so core never loads it: this file imports types only.
 */
export type OpenTelemetryApi = Pick<
  typeof OtelApi,
  | 'trace'
  | 'metrics'
  | 'propagation'
  | 'context'
  | 'ROOT_CONTEXT'
  | 'SpanKind'
  | 'SpanStatusCode'
  | 'TraceFlags'
  | 'createTraceState'
  | 'isSpanContextValid'
>;

export type {
  Attributes,
  Context,
  Counter,
  Histogram,
  Link,
  Meter,
  Span,
  SpanContext,
  Tracer,
} from '@opentelemetry/api';
