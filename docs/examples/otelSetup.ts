// The host setup of docs/telemetry.md; the region below is quoted there verbatim.
// #region otel-setup
import type { Telemetry } from '@gatehousejs/core';
import { openTelemetry } from '@gatehousejs/core/otel';
import * as api from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { metrics, NodeSDK } from '@opentelemetry/sdk-node';

/**
 * Starts the OpenTelemetry SDK (it registers the global tracer and meter
 * providers and the W3C trace context propagator) and returns Gatehouse's
 * hooks on the API: pass them as `createServer({ …, telemetry })`.
 */
export function startTelemetry(): { telemetry: Telemetry; shutdown: () => Promise<void> } {
  const sdk = new NodeSDK({
    serviceName: 'notes',
    // Both read OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318) and OTEL_EXPORTER_OTLP_HEADERS.
    traceExporter: new OTLPTraceExporter(),
    metricReaders: [new metrics.PeriodicExportingMetricReader({ exporter: new OTLPMetricExporter() })],
  });
  sdk.start();
  return { telemetry: openTelemetry(api, { version: '1.0.0' }), shutdown: () => sdk.shutdown() };
}
// #endregion otel-setup
