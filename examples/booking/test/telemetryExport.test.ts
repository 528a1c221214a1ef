/**
 * The booking server process (`src/main.ts`, bundled) with
 * `OTEL_EXPORTER_OTLP_ENDPOINT` pointing at this test's own OTLP/HTTP
 * receiver: a `create_booking` arrives there as a SERVER span named
 * `tools/call create_booking` in the client's trace, with the duration
 * metric, exported when the process stops on SIGTERM. Without the variable
 * nothing is sent. No token or argument value is in anything exported.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawHttpClient } from '@gatehousejs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, CHILD_ENV } from '../../../test/childBundle.js';
import { type RunningBooking, spawnBooking } from './fixtures/spawnBooking.js';
import { berlin } from './fixtures/testApp.js';

const here = dirname(fileURLToPath(import.meta.url));
const TRACE_ID = '5bd66ef5095369c7b0d1f8f4bd33716a';
const PARENT_ID = 'c532cb4098ac3dd2';
/** An argument value that must reach no span or metric. */
const ARG_DECOY = '731.59';
let dir = '';
let script = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-otel-'));
  script = join(dir, 'main.cjs');
  // OpenTelemetry loads from the workspace's node_modules at run time, as an installed app loads
  // it; its dynamic import() resolves as ESM, which ignores NODE_PATH, so link node_modules beside
  bundleChild(join(here, '../src/main.ts'), script, ['better-sqlite3', 'pino', 'pg', '@opentelemetry/*']);
  symlinkSync(CHILD_ENV.NODE_PATH as string, join(dir, 'node_modules'), 'dir');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Received {
  readonly path: string;
  readonly body: string;
}

/**
 * An OTLP/HTTP receiver on loopback that keeps every request body and answers 200,
 * or, `silent`, never answers (a collector that hangs).
 */
async function receiver(
  silent = false,
): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
      if (!silent) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Starts `main` with `env` on a fresh database file and reads the MCP URL and demo token from its banner. */
const start = (name: string, env: Record<string, string>): Promise<RunningBooking> =>
  spawnBooking(script, join(dir, `${name}.db`), { OTEL_EXPORTER_OTLP_ENDPOINT: '', ...env });

/** Books a visit with the demo token, in the trace of `TRACE_ID`; returns the booking's id. */
async function createBooking(server: RunningBooking): Promise<string> {
  const client = new RawHttpClient({
    url: server.url,
    era: '2026-07-28',
    headers: { authorization: `Bearer ${server.token}` },
  });
  const reply = await client.callTool(
    'create_booking',
    {
      customer_id: 'cu_ada',
      technician_id: 'te_ravi',
      starts_at: berlin(30, '09:00'),
      duration_minutes: 60,
      price: { amount: ARG_DECOY, currency: 'EUR' },
    },
    { meta: { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` } },
  );
  const content = reply.result?.structuredContent as
    | { status?: string; result?: { id?: string } }
    | undefined;
  expect(content?.status, server.output()).toBe('ok');
  return content?.result?.id ?? '';
}

interface OtlpSpan {
  readonly traceId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: { key: string; value: Record<string, unknown> }[];
}

/** Every span of every OTLP/HTTP JSON trace export received. */
function spansOf(received: readonly Received[]): OtlpSpan[] {
  return received
    .filter((r) => r.path === '/v1/traces')
    .flatMap((r) => {
      const body = JSON.parse(r.body) as {
        resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    });
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value ? Object.values(value)[0] : undefined;
};

describe('the booking server process with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports a tools/call create_booking span in the client’s trace, and the duration metric, by the time it exits', async () => {
    const otlp = await receiver();
    try {
      const server = await start('exported', {
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_SERVICE_NAME: 'booking-under-test',
      });
      const id = await createBooking(server);
      expect(id).toMatch(/^bk_/);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);

      const spans = spansOf(otlp.received);
      const span = spans.find((s) => s.name === 'tools/call create_booking');
      expect(span, `spans received: ${spans.map((s) => s.name).join(', ')}`).toBeDefined();
      if (!span) return;
      expect(span.traceId.toLowerCase()).toBe(TRACE_ID);
      expect(span.parentSpanId?.toLowerCase()).toBe(PARENT_ID);
      expect(span.kind).toBe(2); // SERVER in OTLP
      expect(attribute(span, 'gen_ai.tool.name')).toBe('create_booking');
      expect(attribute(span, 'gatehouse.outcome')).toBe('ok');
      expect(attribute(span, 'network.transport')).toBe('tcp');
      expect(spans.some((s) => s.name === 'gatehouse unit_of_work')).toBe(true);

      const traces = otlp.received.find((r) => r.path === '/v1/traces')?.body ?? '';
      expect(traces).toContain('booking-under-test');
      const metrics = otlp.received.filter((r) => r.path === '/v1/metrics').map((r) => r.body);
      expect(metrics.join('\n')).toContain('mcp.server.operation.duration');
      const everything = otlp.received.map((r) => r.body).join('\n');
      expect(everything).not.toContain(server.token);
      for (const value of [ARG_DECOY, 'cu_ada', 'te_ravi', id]) expect(everything).not.toContain(value);
    } finally {
      await otlp.close();
    }
  });

  it('exits within its 5 s export bound when the collector never answers', async () => {
    const otlp = await receiver(true);
    try {
      const server = await start('hanging', { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url });
      await createBooking(server);
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      const waited = Date.now() - signalled;
      expect(waited).toBeLessThan(8_000); // the exporter alone would wait 10 s
      expect(otlp.received.some((r) => r.path === '/v1/traces')).toBe(true);
    } finally {
      await otlp.close();
    }
  });

  it('sends nothing when the variable is not set', async () => {
    const otlp = await receiver();
    try {
      const server = await start('silent', {
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${otlp.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`,
      });
      await createBooking(server);
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
      expect(otlp.received).toEqual([]);
    } finally {
      await otlp.close();
    }
  });

  it('refuses an endpoint that is not an http(s) URL with one line that does not repeat it', async () => {
    const child = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        ...CHILD_ENV,
        BOOKING_DB: join(dir, 'refused.db'),
        DATABASE_URL: '',
        PORT: '0',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318?key=s3cr3t',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toContain('OTEL_EXPORTER_OTLP_ENDPOINT');
    expect(err).not.toContain('s3cr3t');
  });
});
