/**
 * `openTelemetry(api)` wired into real servers: the notes server over
 * Streamable HTTP (both protocol eras) and stdio, and the pipeline desk for
 * previews, confirmations and a person's approval. Checks span names and
 * attributes per call kind, the parent from `params._meta.traceparent`, the
 * stage spans with their decisions, the metrics, and that no argument value,
 * result, token or secret reaches any span or metric.
 */
import { PassThrough } from 'node:stream';
import { RawHttpClient, RawStdioClient } from '@gatehousejs/testing';
import * as api from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { listen } from '../src/node.js';
import { openTelemetry } from '../src/otel.js';
import { serveStdio } from '../src/stdio.js';
import type { RequestFacts } from '../src/telemetry.js';
import { ARG_CANARY, LEAKS, notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { codeOf, connection, type PipelineDesk, pipelineDesk, structured } from './fixtures/pipelineDesk.js';
import { type OtelCapture, otelCapture, serializeSpans } from './otelCapture.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

/** The notes server over HTTP with OpenTelemetry, and a raw client of one era. */
async function servedNotes(era: '2025-11-25' | '2026-07-28' = '2026-07-28') {
  const otel = otelCapture();
  const app = notesServer({ telemetry: openTelemetry(otel.api) });
  const served = await listen(app.server);
  const client = new RawHttpClient({
    url: served.url,
    era,
    headers: { authorization: `Bearer ${TOKEN_T1}` },
  });
  return {
    otel,
    app,
    client,
    async [Symbol.asyncDispose]() {
      await served[Symbol.asyncDispose]();
    },
  };
}

const stageSummary = (otel: OtelCapture, name: string) =>
  otel
    .childrenOf(otel.span(name))
    .map((s) =>
      [s.name, s.attributes['gatehouse.decision'], s.attributes['gatehouse.error.code']]
        .filter(Boolean)
        .join(' '),
    );

/** Every attribute value of every metric data point, as JSON. */
async function metricAttributes(otel: OtelCapture): Promise<string> {
  const names = await otel.metricNames();
  const points = await Promise.all(names.map((n) => otel.points(n)));
  return JSON.stringify(points.flat().map((p) => p.attributes));
}

describe('openTelemetry over Streamable HTTP', () => {
  it('records a tools/call as a SERVER span under the client’s traceparent, with its stages', async () => {
    await using notes = await servedNotes();
    const reply = await notes.client.callTool(
      'add_note',
      { text: 'traced note' },
      { meta: { traceparent: TRACEPARENT, tracestate: 'rojo=00f067aa0ba902b7' } },
    );
    expect(reply.status).toBe(200);
    expect(notes.app.rows.map((r) => r.text)).toContain('traced note');
    const span = notes.otel.span('tools/call add_note');
    expect(span.kind).toBe(api.SpanKind.SERVER);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
    expect(span.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'add_note',
      'gen_ai.operation.name': 'execute_tool',
      'mcp.protocol.version': '2026-07-28',
      'network.transport': 'tcp',
      'gatehouse.outcome': 'ok',
      'gatehouse.tenant.id': 't1',
      'gatehouse.connection.id': 'conn_t1',
    });
    expect(span.attributes['jsonrpc.request.id']).toMatch(/^\d+$/);
    expect(span.attributes['error.type']).toBeUndefined();
    expect(stageSummary(notes.otel, 'tools/call add_note')).toEqual([
      'gatehouse replay pass',
      'gatehouse unit_of_work pass',
    ]);
  });

  it('records tools/list, and a re-sent write as a replay at the replay stage', async () => {
    await using notes = await servedNotes();
    await notes.client.listTools();
    expect(notes.otel.span('tools/list').attributes).toMatchObject({
      'mcp.method.name': 'tools/list',
      'gatehouse.outcome': 'ok',
    });
    expect(notes.otel.span('tools/list').attributes['gen_ai.tool.name']).toBeUndefined();
    await notes.client.callTool('add_note', { text: 'once' });
    notes.otel.reset();
    const again = await notes.client.callTool('add_note', { text: 'once' });
    expect(again.result?.structuredContent).toMatchObject({ replayed: true });
    expect(notes.app.rows.filter((r) => r.text === 'once')).toHaveLength(1);
    expect(notes.otel.span('tools/call add_note').attributes['gatehouse.outcome']).toBe('replayed');
    expect(stageSummary(notes.otel, 'tools/call add_note')).toEqual(['gatehouse replay replay']);
    const [replays] = await notes.otel.points('gatehouse.replays');
    expect(replays?.value).toBe(1);
  });

  it('records a refusal as tool_error with its code, counted by code, and nothing written', async () => {
    await using notes = await servedNotes();
    const before = notes.app.rows.length;
    const reply = await notes.client.callTool('add_note', { text: 'x', workspace_id: 'ws_2' });
    expect(reply.result?.isError).toBe(true);
    expect(notes.app.rows).toHaveLength(before);
    const span = notes.otel.span('tools/call add_note');
    expect(span.attributes).toMatchObject({
      'error.type': 'tool_error',
      'gatehouse.error.code': 'unknown_arguments',
      'gatehouse.outcome': 'refused',
    });
    expect(span.status).toEqual({ code: api.SpanStatusCode.ERROR, message: 'unknown_arguments' });
    const refusals = await notes.otel.points('gatehouse.refusals');
    expect(refusals.map((p) => [p.attributes, p.value])).toEqual([
      [{ 'gen_ai.tool.name': 'add_note', 'gatehouse.error.code': 'unknown_arguments' }, 1],
    ]);
    const [duration] = await notes.otel.points('mcp.server.operation.duration');
    expect(duration?.attributes).toMatchObject({
      'gatehouse.outcome': 'refused',
      'error.type': 'tool_error',
    });
  });

  it('records an internal error with the correlation id the host’s error sink got, and no cause', async () => {
    await using notes = await servedNotes();
    const reply = await notes.client.callTool('note_stats', { query: ARG_CANARY });
    expect(reply.result?.isError).toBe(true);
    const [reported] = notes.app.internalErrors;
    expect(reported).toBeDefined();
    expect(notes.otel.span('tools/call note_stats').attributes).toMatchObject({
      'error.type': 'tool_error',
      'gatehouse.error.code': 'internal_error',
      'gatehouse.correlation_id': reported?.correlationId,
      'gatehouse.outcome': 'internal_error',
    });
  });

  it('continues the client’s trace in the 2025-11-25 era too', async () => {
    await using notes = await servedNotes('2025-11-25');
    await notes.client.callTool('find_notes', { query: 'groceries' }, { meta: { traceparent: TRACEPARENT } });
    const span = notes.otel.span('tools/call find_notes');
    expect(span.attributes).toMatchObject({ 'gen_ai.tool.name': 'find_notes', 'gatehouse.outcome': 'ok' });
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
  });

  it('counts a request with a wrong token as refused at admission, with no span and no token', async () => {
    await using notes = await servedNotes();
    const stranger = new RawHttpClient({
      url: notes.client.url,
      era: '2026-07-28',
      headers: { authorization: 'Bearer ghmcp_wrong_0000' },
    });
    expect((await stranger.callTool('add_note', { text: 'x' })).status).toBe(401);
    expect(notes.otel.spans()).toEqual([]);
    const points = await notes.otel.points('gatehouse.admission.refusals');
    expect(points.map((p) => [p.attributes, p.value])).toEqual([
      [
        {
          'gatehouse.refusal.status': 401,
          'gatehouse.refusal.step': 'credential',
          'network.transport': 'tcp',
        },
        1,
      ],
    ]);
    expect(await metricAttributes(notes.otel)).not.toContain('ghmcp_');
  });

  it('records no argument value, result, token or secret in any span, event or metric', async () => {
    await using notes = await servedNotes();
    await notes.client.callTool('add_note', { text: ARG_CANARY }, { meta: { traceparent: TRACEPARENT } });
    await notes.client.callTool('add_note', { text: ARG_CANARY }); // replayed
    await notes.client.callTool('add_note', { text: ARG_CANARY, extra: ARG_CANARY }); // refused
    await notes.client.callTool('find_notes', { query: 'groceries' }); // a result holding note text
    await notes.client.callTool('note_stats', { query: ARG_CANARY }); // internal error holding a secret
    await notes.client.callTool(`no_such_tool_${ARG_CANARY}`, {}); // a tool name the client made up
    await notes.client.listTools();
    const spans = notes.otel.spans();
    expect(spans.length).toBeGreaterThanOrEqual(7);
    expect(spans.map((s) => s.name)).toContain('tools/call (unknown)');
    const recorded = serializeSpans(spans) + (await metricAttributes(notes.otel));
    for (const decoy of [ARG_CANARY, TOKEN_T1, 'ghmcp_', 'groceries', 'DECOY-SECRET', ...LEAKS]) {
      expect(recorded).not.toContain(decoy);
    }
    expect(notes.app.internalErrors).toHaveLength(1); // the secret was there to leak
    expect(notes.app.rows.some((r) => r.text === ARG_CANARY)).toBe(true); // the argument went through
  });
});

describe('openTelemetry over stdio', () => {
  it('records a tools/call with network.transport pipe under the client’s traceparent', async () => {
    const otel = otelCapture();
    const app = notesServer({ telemetry: openTelemetry(otel.api) });
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(app.server, { token: TOKEN_T1, input, output });
    await using client = RawStdioClient.connect(
      { input, output, close: () => handle.close() },
      { era: '2026-07-28' },
    );
    await client.callTool('add_note', { text: 'piped' }, { meta: { traceparent: TRACEPARENT } });
    expect(app.rows.map((r) => r.text)).toContain('piped');
    const span = otel.span('tools/call add_note');
    expect(span.attributes).toMatchObject({ 'network.transport': 'pipe', 'gatehouse.outcome': 'ok' });
    expect(span.parentSpanContext?.spanId).toBe(PARENT_ID);
  });
});

describe('openTelemetry with previews, confirmations and approvals', () => {
  const facts = (tool: string): RequestFacts => ({
    method: 'tools/call',
    tool,
    transport: 'http',
    requestId: 1,
  });

  /** A call through callTool with a span started from the desk's telemetry, as a transport starts it. */
  const call = (
    desk: PipelineDesk,
    telemetry: ReturnType<typeof openTelemetry>,
    tool: string,
    args: object,
  ) => desk.server.callTool(connection(), tool, args, { span: telemetry.request(facts(tool)) });

  it('records a preview, then a confirmation with its confirm stage, and counts both; a reused token is refused', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    const desk = pipelineDesk({ telemetry });
    const preview = await call(desk, telemetry, 'notify_owner', { note_id: 'n1' });
    const { confirm_token, confirm_summary } = structured(preview) as {
      confirm_token: string;
      confirm_summary: string;
    };
    expect(desk.sent).toEqual([]);
    expect(otel.span('tools/call notify_owner').attributes['gatehouse.outcome']).toBe('preview');

    await call(desk, telemetry, 'confirm_action', { confirm_token, confirm_summary });
    expect(desk.sent).toEqual(['Boiler fixed']);
    const confirmSpan = otel.span('tools/call confirm_action');
    expect(confirmSpan.attributes['gatehouse.outcome']).toBe('ok');
    expect(stageSummary(otel, 'tools/call confirm_action')).toContain('gatehouse confirm pass');
    otel.reset();

    const reused = await call(desk, telemetry, 'confirm_action', { confirm_token, confirm_summary: 'other' });
    expect(codeOf(reused)).toBe('confirm_used');
    expect(desk.sent).toHaveLength(1);
    expect(stageSummary(otel, 'tools/call confirm_action')).toContain(
      'gatehouse confirm refuse confirm_used',
    );

    expect((await otel.points('gatehouse.previews')).map((p) => p.value)).toEqual([1]);
    expect((await otel.points('gatehouse.confirmations')).map((p) => p.value)).toEqual([1]);
    const refusals = await otel.points('gatehouse.refusals');
    expect(refusals.map((p) => p.attributes['gatehouse.error.code'])).toEqual(['confirm_used']);
    const recorded = serializeSpans(otel.spans()) + (await metricAttributes(otel));
    expect(recorded).not.toContain(confirm_token);
    expect(recorded).not.toContain('Boiler');
  });

  it('counts a person’s decision on the approval page by outcome and tool', async () => {
    const otel = otelCapture();
    const telemetry = openTelemetry(otel.api);
    const desk = pipelineDesk({ notifyApproval: 'person', telemetry });
    const asked = await call(desk, telemetry, 'notify_owner', { note_id: 'n1' });
    expect(otel.span('tools/call notify_owner').attributes['gatehouse.outcome']).toBe('approval');
    const id = (structured(asked) as unknown as Record<string, string>).pending_action_id as string;
    const approver = {
      personId: 'p1',
      tenantId: 't1',
      rights: new Set(['notes.read', 'notes.write'] as const),
    };
    const approvals = desk.server.approvals;
    if (!approvals) throw new Error('The desk has approvals configured.');
    const view = await approvals.view(id, approver);
    await approvals.approve(id, approver, { contentHash: view?.contentHash ?? '' });
    expect(desk.sent).toEqual(['Boiler fixed']);
    const points = await otel.points('gatehouse.approvals');
    expect(points.map((p) => [p.attributes, p.value])).toEqual([
      [{ 'gatehouse.approval.outcome': 'executed', 'gen_ai.tool.name': 'notify_owner' }, 1],
    ]);
  });
});
