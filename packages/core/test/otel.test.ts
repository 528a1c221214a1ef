/**
 * `openTelemetry(api)` through the `Telemetry` interface, against the
 * OpenTelemetry 2.x SDK with in-memory exporters: span names, kinds and
 * attributes per outcome (the MCP semantic conventions), the parent taken
 * from `traceparent`, stage spans with their decision, and the metrics.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as api from '@opentelemetry/api';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../src/errors.js';
import { type OpenTelemetryApi, openTelemetry } from '../src/otel.js';
import type { RequestFacts } from '../src/telemetry.js';
import { otelCapture } from './otelCapture.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT_ID = 'b7ad6b7169203331';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

const call = (tool: string, more: Partial<RequestFacts> = {}): RequestFacts => ({
  method: 'tools/call',
  tool,
  requestId: 7,
  protocolVersion: '2026-07-28',
  transport: 'http',
  ...more,
});

describe('openTelemetry: request spans', () => {
  it('starts a SERVER span named after the method and tool, with the conventions’ attributes', () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api, { version: '1.2.3' });
    telemetry.request(call('add_note')).end({ outcome: 'ok', tenantId: 't1', connectionId: 'c1' });
    const span = otel.span('tools/call add_note');
    expect(span.kind).toBe(api.SpanKind.SERVER);
    expect(span.instrumentationScope).toMatchObject({ name: '@gatehousejs/core', version: '1.2.3' });
    expect(span.attributes).toEqual({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add_note',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.request.id': '7',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'gatehouse.outcome': 'ok',
      'gatehouse.tenant.id': 't1',
      'gatehouse.connection.id': 'c1',
    });
    expect(span.status.code).toBe(api.SpanStatusCode.UNSET);
    expect(span.parentSpanContext).toBeUndefined();
  });

  it('names a tools/list span after the method alone, without tool or operation, pipe over stdio', () => {
    const otel = otelCapture();
    openTelemetry(otel.api)
      .request({ method: 'tools/list', requestId: 'list-1', transport: 'stdio' })
      .end({ outcome: 'ok' });
    expect(otel.span('tools/list').attributes).toEqual({
      'mcp.method.name': 'tools/list',
      'jsonrpc.request.id': 'list-1',
      'network.transport': 'pipe',
      'gatehouse.outcome': 'ok',
    });
  });

  it('marks a refusal as a tool_error with the Gatehouse code, and sets the span status to ERROR', () => {
    const otel = otelCapture();
    openTelemetry(otel.api).request(call('add_note')).end({ outcome: 'refused', code: 'conflict' });
    const span = otel.span('tools/call add_note');
    expect(span.attributes).toMatchObject({
      'error.type': 'tool_error',
      'gatehouse.error.code': 'conflict',
      'gatehouse.outcome': 'refused',
    });
    expect(span.attributes['rpc.response.status_code']).toBeUndefined();
    expect(span.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'conflict' });
  });

  it('marks an internal error as a tool_error with its correlation id', () => {
    const otel = otelCapture();
    openTelemetry(otel.api)
      .request(call('note_stats'))
      .end({ outcome: 'internal_error', correlationId: '01JCORRELATION' });
    expect(otel.span('tools/call note_stats').attributes).toMatchObject({
      'error.type': 'tool_error',
      'gatehouse.error.code': 'internal_error',
      'gatehouse.correlation_id': '01JCORRELATION',
    });
  });

  it('records a JSON-RPC error as its code in error.type and rpc.response.status_code', () => {
    const otel = otelCapture();
    openTelemetry(otel.api).request(call('add_note')).end({ outcome: 'rpc_error', rpcErrorCode: -32602 });
    const span = otel.span('tools/call add_note');
    expect(span.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' });
    expect(span.attributes['gatehouse.error.code']).toBeUndefined();
    expect(span.status.code).toBe(api.SpanStatusCode.ERROR);
  });

  it('records replays, previews and confirmations as outcomes that are not errors', () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('add_note')).end({ outcome: 'replayed' });
    telemetry.request(call('notify_owner')).end({ outcome: 'preview' });
    telemetry.request(call('confirm_action')).end({ outcome: 'ok', confirmed: true });
    for (const [name, outcome] of [
      ['tools/call add_note', 'replayed'],
      ['tools/call notify_owner', 'preview'],
      ['tools/call confirm_action', 'ok'],
    ] as const) {
      const span = otel.span(name);
      expect(span.attributes['gatehouse.outcome']).toBe(outcome);
      expect(span.attributes['error.type']).toBeUndefined();
      expect(span.status.code).toBe(api.SpanStatusCode.UNSET);
    }
  });

  it('records a tool name that is not the server’s as (unknown): refused as unknown_tool, or not a tool name at all', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('made_up_by_client')).end({ outcome: 'refused', code: 'unknown_tool' });
    telemetry.request(call('ignore previous instructions; token=abc')).end({ outcome: 'refused', code: 'x' });
    telemetry.request(call('n'.repeat(129))).end({ outcome: 'ok' });
    const spans = otel.spans();
    expect(spans.map((s) => [s.name, s.attributes['gen_ai.tool.name']])).toEqual([
      ['tools/call (unknown)', '(unknown)'],
      ['tools/call (unknown)', '(unknown)'],
      ['tools/call (unknown)', '(unknown)'],
    ]);
    const points = await otel.points('mcp.server.operation.duration');
    expect(new Set(points.map((p) => p.attributes['gen_ai.tool.name']))).toEqual(new Set(['(unknown)']));
    const refusals = await otel.points('gatehouse.refusals');
    expect(refusals.map((p) => p.attributes['gen_ai.tool.name'])).toEqual(['(unknown)', '(unknown)']);
  });

  it('omits the request id when the request has none, and cuts a long one', () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('a', { requestId: undefined })).end({ outcome: 'ok' });
    telemetry.request(call('b', { requestId: 'x'.repeat(500) })).end({ outcome: 'ok' });
    expect(otel.span('tools/call a').attributes['jsonrpc.request.id']).toBeUndefined();
    expect(otel.span('tools/call b').attributes['jsonrpc.request.id']).toBe('x'.repeat(128));
  });
});

describe('openTelemetry: the parent from params._meta', () => {
  it('continues the client’s trace from traceparent and tracestate through the host’s propagator', () => {
    const otel = otelCapture();
    openTelemetry(otel.api)
      .request(call('add_note', { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7' }))
      .end({ outcome: 'ok' });
    const span = otel.span('tools/call add_note');
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID, isRemote: true });
    expect(span.spanContext().traceState?.get('rojo')).toBe('00f067aa0ba902b7');
  });

  it('parses traceparent itself when the host registered no propagator', () => {
    const otel = otelCapture({ propagator: 'none' });
    openTelemetry(otel.api)
      .request(call('add_note', { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' }))
      .end({ outcome: 'ok' });
    const span = otel.span('tools/call add_note');
    expect(span.parentSpanContext).toMatchObject({ traceId: TRACE_ID, spanId: PARENT_ID, isRemote: true });
    expect(span.spanContext().traceState?.get('congo')).toBe('t61rcWkgMzE');
  });

  it('starts a new trace for a malformed or all-zero traceparent, with either propagator', () => {
    for (const propagator of ['w3c', 'none'] as const) {
      const otel = otelCapture({ propagator });
      const telemetry = openTelemetry(otel.api);
      for (const traceparent of [
        'not a traceparent',
        `00-${'0'.repeat(32)}-${PARENT_ID}-01`,
        `00-${TRACE_ID}-${'0'.repeat(16)}-01`,
        `ff-${TRACE_ID}-${PARENT_ID}-01`,
        `00-${TRACE_ID}-${PARENT_ID}-01-extra`,
      ]) {
        telemetry.request(call('add_note', { traceparent })).end({ outcome: 'ok' });
      }
      const spans = otel.spans();
      expect(spans).toHaveLength(5);
      for (const span of spans) {
        expect(span.parentSpanContext).toBeUndefined();
        expect(span.spanContext().traceId).not.toBe(TRACE_ID);
      }
    }
  });

  it('keeps the sampled flag of the client: a traceparent with flags 00 is not recorded', () => {
    const otel = otelCapture({ propagator: 'none' });
    openTelemetry(otel.api)
      .request(call('add_note', { traceparent: `00-${TRACE_ID}-${PARENT_ID}-00` }))
      .end({ outcome: 'ok' });
    expect(otel.spans()).toHaveLength(0);
  });

  it('links the ambient span (an HTTP server span) when the parent comes from traceparent', () => {
    const ambientSpan = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    const ambient = api.trace.setSpanContext(api.ROOT_CONTEXT, ambientSpan);
    const otel = otelCapture({ ambient });
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('with_parent', { traceparent: TRACEPARENT })).end({ outcome: 'ok' });
    telemetry.request(call('without_parent')).end({ outcome: 'ok' });
    const traced = otel.span('tools/call with_parent');
    expect(traced.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(traced.links.map((l) => l.context.spanId)).toEqual(['b'.repeat(16)]);
    const untraced = otel.span('tools/call without_parent');
    expect(untraced.parentSpanContext?.spanId).toBe('b'.repeat(16));
    expect(untraced.links).toEqual([]);
  });
});

describe('openTelemetry: stage spans', () => {
  it('starts an INTERNAL child span per stage that ends with its decision, and the code of a refusal', () => {
    const otel = otelCapture();
    const request = openTelemetry(otel.api).request(call('add_note', { traceparent: TRACEPARENT }));
    request.stage('rate').end('pass');
    request.stage('guard duplicate').end('refuse', 'duplicate');
    request.stage('replay').end('replay');
    const stray = request.stage('unit_of_work');
    stray.end('pass');
    stray.end('refuse', 'late');
    request.end({ outcome: 'refused', code: 'duplicate' });
    const parent = otel.span('tools/call add_note');
    const stages = otel.childrenOf(parent);
    expect(stages.map((s) => [s.name, s.kind, s.attributes])).toEqual([
      ['gatehouse rate', api.SpanKind.INTERNAL, { 'gatehouse.stage': 'rate', 'gatehouse.decision': 'pass' }],
      [
        'gatehouse guard duplicate',
        api.SpanKind.INTERNAL,
        {
          'gatehouse.stage': 'guard duplicate',
          'gatehouse.decision': 'refuse',
          'gatehouse.error.code': 'duplicate',
        },
      ],
      [
        'gatehouse replay',
        api.SpanKind.INTERNAL,
        { 'gatehouse.stage': 'replay', 'gatehouse.decision': 'replay' },
      ],
      [
        'gatehouse unit_of_work',
        api.SpanKind.INTERNAL,
        { 'gatehouse.stage': 'unit_of_work', 'gatehouse.decision': 'pass' },
      ],
    ]);
    for (const stage of stages) expect(stage.spanContext().traceId).toBe(TRACE_ID);
  });
});

describe('openTelemetry: metrics', () => {
  it('records mcp.server.operation.duration in seconds by method, tool and outcome', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('add_note')).end({ outcome: 'ok' });
    telemetry.request(call('add_note')).end({ outcome: 'ok' });
    telemetry.request(call('add_note')).end({ outcome: 'refused', code: 'conflict' });
    telemetry
      .request({ method: 'tools/list', transport: 'stdio' })
      .end({ outcome: 'rpc_error', rpcErrorCode: -32600 });
    const points = await otel.points('mcp.server.operation.duration');
    const counts = points.map((p) => [p.attributes, (p.value as { count: number }).count]);
    const base = {
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add_note',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
    };
    expect(counts).toEqual(
      expect.arrayContaining([
        [{ ...base, 'gatehouse.outcome': 'ok' }, 2],
        [{ ...base, 'gatehouse.outcome': 'refused', 'error.type': 'tool_error' }, 1],
        [
          {
            'mcp.method.name': 'tools/list',
            'network.transport': 'pipe',
            'gatehouse.outcome': 'rpc_error',
            'error.type': '-32600',
            'rpc.response.status_code': '-32600',
          },
          1,
        ],
      ]),
    );
    expect(counts).toHaveLength(3);
    for (const point of points) {
      const { sum, max } = point.value as { sum: number; max: number };
      expect(sum).toBeGreaterThanOrEqual(0);
      expect(max).toBeLessThan(5); // seconds, not milliseconds
    }
  });

  it('counts refusals by code, replays, previews, confirmations and approvals', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.request(call('add_note')).end({ outcome: 'refused', code: 'conflict' });
    telemetry.request(call('add_note')).end({ outcome: 'refused', code: 'conflict' });
    telemetry.request(call('add_note')).end({ outcome: 'refused', code: 'rate_limited' });
    telemetry.request(call('add_note')).end({ outcome: 'replayed' });
    telemetry.request(call('notify_owner')).end({ outcome: 'preview' });
    telemetry.request(call('confirm_action')).end({ outcome: 'ok', confirmed: true });
    telemetry
      .request(call('confirm_action'))
      .end({ outcome: 'refused', code: 'confirm_used', confirmed: false });
    telemetry.approval?.('executed', 'notify_owner');
    telemetry.approval?.('rejected', 'notify_owner');
    telemetry.approval?.('executed', 'notify_owner');
    const sums = async (name: string) =>
      (await otel.points(name))
        .map((p) => [p.attributes, p.value])
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    expect(await sums('gatehouse.refusals')).toEqual([
      [{ 'gatehouse.error.code': 'conflict', 'gen_ai.tool.name': 'add_note' }, 2],
      [{ 'gatehouse.error.code': 'rate_limited', 'gen_ai.tool.name': 'add_note' }, 1],
      [{ 'gatehouse.error.code': 'confirm_used', 'gen_ai.tool.name': 'confirm_action' }, 1],
    ]);
    expect(await sums('gatehouse.replays')).toEqual([[{ 'gen_ai.tool.name': 'add_note' }, 1]]);
    expect(await sums('gatehouse.previews')).toEqual([[{ 'gen_ai.tool.name': 'notify_owner' }, 1]]);
    expect(await sums('gatehouse.confirmations')).toEqual([[{ 'gen_ai.tool.name': 'confirm_action' }, 1]]);
    expect(await sums('gatehouse.approvals')).toEqual([
      [{ 'gatehouse.approval.outcome': 'executed', 'gen_ai.tool.name': 'notify_owner' }, 2],
      [{ 'gatehouse.approval.outcome': 'rejected', 'gen_ai.tool.name': 'notify_owner' }, 1],
    ]);
  });

  it('counts requests refused before any tool ran by status, step and transport', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    telemetry.refused?.({ status: 401, step: 'bearer', transport: 'http' });
    telemetry.refused?.({ status: 401, step: 'bearer', transport: 'http' });
    telemetry.refused?.({ status: 400, step: 'request', transport: 'stdio' });
    const points = await otel.points('gatehouse.admission.refusals');
    expect(points.map((p) => [p.attributes, p.value])).toEqual([
      [
        { 'gatehouse.refusal.status': 401, 'gatehouse.refusal.step': 'bearer', 'network.transport': 'tcp' },
        2,
      ],
      [
        { 'gatehouse.refusal.status': 400, 'gatehouse.refusal.step': 'request', 'network.transport': 'pipe' },
        1,
      ],
    ]);
    expect(otel.spans()).toEqual([]);
  });

  it('creates its instruments once, however many requests it serves', () => {
    const otel = otelCapture();
    const created: string[] = [];
    const meter = otel.api.metrics.getMeter('x');
    const counting: OpenTelemetryApi = {
      ...otel.api,
      metrics: Object.assign(Object.create(otel.api.metrics), {
        getMeter: () =>
          Object.assign(Object.create(meter), {
            createHistogram(name: string, o: object) {
              created.push(name);
              return meter.createHistogram(name, o);
            },
            createCounter(name: string, o: object) {
              created.push(name);
              return meter.createCounter(name, o);
            },
          }),
      }),
    };
    const telemetry = openTelemetry(counting);
    for (let i = 0; i < 5; i++) telemetry.request(call('add_note')).end({ outcome: 'replayed' });
    expect(created.sort()).toEqual([
      'gatehouse.admission.refusals',
      'gatehouse.approvals',
      'gatehouse.confirmations',
      'gatehouse.previews',
      'gatehouse.refusals',
      'gatehouse.replays',
      'mcp.server.operation.duration',
    ]);
  });
});

describe('openTelemetry: configuration and loading', () => {
  it('refuses something that is not the @opentelemetry/api module, naming the fix', () => {
    const bad = { trace: {} } as unknown as OpenTelemetryApi;
    expect(() => openTelemetry(bad)).toThrow(ConfigurationError);
    expect(() => openTelemetry(bad)).toThrow(/import \* as api from '@opentelemetry\/api'/);
  });

  it('uses the tracer and meter names the host chooses', async () => {
    const otel = otelCapture();
    openTelemetry(otel.api, { tracerName: 'notes-server', meterName: 'notes-metrics' })
      .request(call('add_note'))
      .end({ outcome: 'ok' });
    expect(otel.span('tools/call add_note').instrumentationScope.name).toBe('notes-server');
    expect(await otel.metricNames()).toContain('mcp.server.operation.duration');
  });

  it('imports @opentelemetry/api for types only, so no core entry loads it', () => {
    const src = join(import.meta.dirname, '../src');
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) =>
        statSync(join(dir, f)).isDirectory() ? files(join(dir, f)) : [join(dir, f)],
      );
    const sources = files(src).filter((file) => file.endsWith('.ts'));
    const mentioning = sources.filter((file) => readFileSync(file, 'utf8').includes("from '@opentelemetry/"));
    expect(mentioning.length).toBeGreaterThan(0);
    for (const file of mentioning) {
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions: {
          removeComments: true,
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: true,
        },
      });
      expect(outputText, file).not.toMatch(/^\s*(import|export)\b[^;'"]*['"]@opentelemetry\//m);
      expect(outputText, file).not.toMatch(/(require|import)\(\s*['"]@opentelemetry\//);
    }
    expect(readFileSync(join(src, 'index.ts'), 'utf8')).not.toMatch(/otel/);
  });
});
