// Section 1b: the cost of telemetry in-process. The same Gatehouse write as
// section 1, in alternating rounds: without telemetry, with a no-op hook
// (each call still starts and ends a span and a stage per step), and with the
// OpenTelemetry adapter on an SDK tracer and meter that keep everything in
// memory. The target: a no-op hook costs at most 2 µs per call over none.
import { noopTelemetry } from '@gatehousejs/core';
import { alternate, gatehouseWrite, NoteTable } from './inProcess.mjs';

/** The OpenTelemetry adapter on in-memory SDK providers, or undefined when the packages are not installed. */
async function inMemoryOpenTelemetry() {
  try {
    const [{ openTelemetry }, api, traces, metrics] = await Promise.all([
      import('@gatehousejs/core/otel'),
      import('@opentelemetry/api'),
      import('@opentelemetry/sdk-trace-base'),
      import('@opentelemetry/sdk-metrics'),
    ]);
    const exporter = new traces.InMemorySpanExporter();
    const tracerProvider = new traces.BasicTracerProvider({
      spanProcessors: [new traces.SimpleSpanProcessor(exporter)],
    });
    const reader = new metrics.PeriodicExportingMetricReader({
      exporter: new metrics.InMemoryMetricExporter(metrics.AggregationTemporality.CUMULATIVE),
      exportIntervalMillis: 3_600_000,
    });
    const meterProvider = new metrics.MeterProvider({ readers: [reader] });
    // this bench process has no other telemetry: the in-memory providers are the global ones
    api.trace.setGlobalTracerProvider(tracerProvider);
    api.metrics.setGlobalMeterProvider(meterProvider);
    // the exporter keeps every span: it is emptied every 1,000 calls so memory stays flat
    const telemetry = openTelemetry(api);
    return { telemetry, drain: () => exporter.reset() };
  } catch (error) {
    return { skipped: String(error?.message ?? error).slice(0, 120) };
  }
}

export async function runTelemetry(plan) {
  const otel = await inMemoryOpenTelemetry();
  const contenders = [
    { id: 'absent', label: 'no telemetry', make: () => gatehouseWrite(new NoteTable()) },
    {
      id: 'noop',
      label: 'no-op hook',
      make: () => gatehouseWrite(new NoteTable(), { telemetry: noopTelemetry }),
    },
  ];
  if (otel.telemetry) {
    contenders.push({
      id: 'otel',
      label: 'OpenTelemetry SDK, in memory',
      make: () => {
        const write = gatehouseWrite(new NoteTable(), { telemetry: otel.telemetry });
        let calls = 0;
        return async (args) => {
          if (++calls % 1_000 === 0) otel.drain();
          return write(args);
        };
      },
    });
  }
  return { rows: await alternate(contenders, plan), skipped: otel.skipped };
}
