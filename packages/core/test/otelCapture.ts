/**
 * An OpenTelemetry SDK that keeps what it records in memory, for the
 * otel*.test.ts files: a tracer provider with an in-memory span exporter, a
 * meter provider with a reader the test collects from, and the W3C trace
 * context propagator, handed to `openTelemetry` as a scoped API object (no
 * global provider is registered, so test files cannot see each other's spans).
 */
import * as api from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  type DataPoint,
  type Histogram,
  MeterProvider,
  type MetricData,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { OpenTelemetryApi } from '../src/otel.js';

/** A reader that exports nothing on its own: the test calls `collect()`. */
class CollectingReader extends MetricReader {
  protected override async onShutdown(): Promise<void> {}
  protected override async onForceFlush(): Promise<void> {}
}

/** Numbers spans in the order they started (start times of two quick stages can tie). */
class StartOrder implements SpanProcessor {
  readonly order = new Map<string, number>();
  onStart(span: Span): void {
    this.order.set(span.spanContext().spanId, this.order.size);
  }
  onEnd(): void {}
  async forceFlush(): Promise<void> {}
  async shutdown(): Promise<void> {}
}

export interface CaptureOptions {
  /** `w3c` (default): the W3C propagator is the host's; `none`: the API's no-op propagator. */
  readonly propagator?: 'w3c' | 'none';
  /** The ambient context (e.g. an HTTP server span's) that `context.active()` returns. */
  readonly ambient?: api.Context;
}

/** A scoped OpenTelemetry SDK: `api` for `openTelemetry(api)`, and what it recorded. */
export function otelCapture(options: CaptureOptions = {}) {
  const exporter = new InMemorySpanExporter();
  const started = new StartOrder();
  const tracerProvider = new BasicTracerProvider({
    spanProcessors: [started, new SimpleSpanProcessor(exporter)],
  });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const w3c = new W3CTraceContextPropagator();
  const extend = <T extends object>(base: T, own: Partial<T>): T => Object.assign(Object.create(base), own);
  const scoped: OpenTelemetryApi = {
    ...api,
    trace: extend(api.trace, { getTracer: (name, version) => tracerProvider.getTracer(name, version) }),
    metrics: extend(api.metrics, {
      getMeter: (name, version, opts) => meterProvider.getMeter(name, version, opts),
    }),
    propagation:
      options.propagator === 'none'
        ? api.propagation
        : extend(api.propagation, {
            extract: (context, carrier) => w3c.extract(context, carrier, api.defaultTextMapGetter),
          }),
    context: options.ambient
      ? extend(api.context, { active: () => options.ambient ?? api.ROOT_CONTEXT })
      : api.context,
  };
  return {
    api: scoped,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    span(name: string): ReadableSpan {
      const found = exporter.getFinishedSpans().filter((s) => s.name === name);
      if (found.length !== 1) {
        const names = exporter.getFinishedSpans().map((s) => s.name);
        throw new Error(
          `Expected one span named "${name}", found ${found.length} among: ${names.join(', ')}`,
        );
      }
      return found[0] as ReadableSpan;
    },
    /** The stage spans whose parent is `span`, in start order. */
    childrenOf(span: ReadableSpan): ReadableSpan[] {
      const id = span.spanContext().spanId;
      return exporter
        .getFinishedSpans()
        .filter((s) => s.parentSpanContext?.spanId === id)
        .sort((a, b) => orderOf(started, a) - orderOf(started, b));
    },
    /** The finished spans as text trees ({@link renderTrees}), in start order. */
    render: (): string => renderTrees(exporter.getFinishedSpans(), (s) => orderOf(started, s)),
    reset: () => exporter.reset(),
    /** The data points of one metric, by name; empty when nothing was recorded. */
    async points(name: string): Promise<DataPoint<number | Histogram>[]> {
      const { resourceMetrics } = await reader.collect();
      const metrics: MetricData[] = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
      const metric = metrics.find((m) => m.descriptor.name === name);
      return (metric?.dataPoints ?? []) as DataPoint<number | Histogram>[];
    },
    async metricNames(): Promise<string[]> {
      const { resourceMetrics } = await reader.collect();
      return resourceMetrics.scopeMetrics.flatMap((s) => s.metrics.map((m) => m.descriptor.name));
    },
  };
}

export type OtelCapture = ReturnType<typeof otelCapture>;

const orderOf = (started: StartOrder, span: ReadableSpan) =>
  started.order.get(span.spanContext().spanId) ?? Number.MAX_SAFE_INTEGER;

/** Every span as JSON: names, attributes, events, links, status; for searching decoys. */
export function serializeSpans(spans: readonly ReadableSpan[]): string {
  return JSON.stringify(
    spans.map((s) => ({
      name: s.name,
      attributes: s.attributes,
      events: s.events,
      links: s.links,
      status: s.status,
    })),
  );
}

/** Attributes whose values differ per run, masked in rendered trees. */
const VARYING = new Set(['gatehouse.correlation_id', 'gatehouse.connection.id', 'jsonrpc.request.id']);
const KINDS = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

/**
 * The span trees as indented text, one span a line with its kind, status and
 * remote parent, then its attributes (values that differ per run masked),
 * children in start order.
 */
export function renderTrees(
  spans: readonly ReadableSpan[],
  startIndex: (span: ReadableSpan) => number = () => 0,
): string {
  const ids = new Set(spans.map((s) => s.spanContext().spanId));
  const byStart = [...spans].sort(
    (a, b) => startIndex(a) - startIndex(b) || compareTime(a.startTime, b.startTime),
  );
  const lines: string[] = [];
  const walk = (span: ReadableSpan, depth: number) => {
    const status =
      span.status.code === api.SpanStatusCode.ERROR ? ` ERROR(${span.status.message ?? ''})` : '';
    const remote = span.parentSpanContext?.isRemote
      ? ` ← remote parent ${span.parentSpanContext.spanId}`
      : '';
    lines.push(`${'  '.repeat(depth)}${span.name} [${KINDS[span.kind]}]${status}${remote}`);
    for (const [key, value] of Object.entries(span.attributes).sort(([a], [b]) => a.localeCompare(b))) {
      const shown = VARYING.has(key) ? '…' : JSON.stringify(value);
      lines.push(`${'  '.repeat(depth)}  · ${key} = ${shown}`);
    }
    const id = span.spanContext().spanId;
    for (const child of byStart.filter((s) => s.parentSpanContext?.spanId === id)) walk(child, depth + 1);
  };
  for (const root of byStart.filter((s) => !s.parentSpanContext || !ids.has(s.parentSpanContext.spanId))) {
    walk(root, 0);
  }
  return lines.join('\n');
}

const compareTime = (a: api.HrTime, b: api.HrTime) => a[0] - b[0] || a[1] - b[1];
