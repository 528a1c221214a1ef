import type { Telemetry } from '@gatehousejs/core';
import { openTelemetry } from '@gatehousejs/core/otel';
import { UsageError } from './config.js';

/** The OpenTelemetry SDK the server started, and the hooks its MCP server reports to. */
export interface BookingTelemetry {
  readonly telemetry: Telemetry;
  /** Exports what is still buffered and stops the SDK, within 5 s; call it on exit. */
  shutdown(): Promise<void>;
}

/** The version the booking server reports as its instrumentation scope. */
const VERSION = '0.1.0';
/** The longest exit waits for the last export (a collector that does not answer must not hold it). */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/**
 * Starts the OpenTelemetry Node SDK with OTLP/HTTP (JSON) exporters for
 * traces and metrics when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, and returns
 * Gatehouse's hooks on it; otherwise returns undefined and loads none of the
 * OpenTelemetry packages. The SDK reads the standard variables itself
 * (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`,
 * `OTEL_METRIC_EXPORT_INTERVAL`, …). An endpoint that is not an http(s) URL
 * is a {@link UsageError} that never repeats the value (it may hold a
 * password).
 */
export async function startTelemetry(
  env: NodeJS.ProcessEnv = process.env,
): Promise<BookingTelemetry | undefined> {
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!endpoint) return undefined;
  if (!isHttpUrl(endpoint)) {
    throw new UsageError(
      'OTEL_EXPORTER_OTLP_ENDPOINT must be the http(s) URL of an OTLP/HTTP collector, such as http://localhost:4318.',
    );
  }
  const [api, { NodeSDK, metrics }, { OTLPTraceExporter }, { OTLPMetricExporter }] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/exporter-metrics-otlp-http'),
  ]);
  const sdk = new NodeSDK({
    serviceName: env.OTEL_SERVICE_NAME?.trim() || 'gatehouse-booking',
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [new metrics.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
    instrumentations: [],
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  return {
    telemetry: openTelemetry(api, { version: VERSION }),
    shutdown: () => {
      stopped ??= Promise.race([sdk.shutdown().catch(() => undefined), delay(SHUTDOWN_TIMEOUT_MS)]);
      return stopped;
    },
  };
}

/** Resolves after `ms` without keeping the process alive. */
function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function isHttpUrl(raw: string): boolean {
  try {
    const { protocol } = new URL(raw);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
