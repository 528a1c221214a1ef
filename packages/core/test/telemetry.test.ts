/**
 * Core's telemetry hooks: what a transport and the pipeline report, per
 * call kind, through a recording `Telemetry` (the OpenTelemetry mapping of
 * these hooks is tested in otel*.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { listen } from '../src/node.js';
import type { RequestEnd, RequestFacts, RequestSpan, Telemetry } from '../src/telemetry.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { codeOf, connection, type PipelineDesk, pipelineDesk, structured } from './fixtures/pipelineDesk.js';
import { createRequest } from './fixtures/rawRequest.js';

interface Recorded {
  readonly facts?: RequestFacts;
  readonly stages: string[];
  end?: RequestEnd;
  ends: number;
}

/** A span that records its stages (`name:decision[:code]`) and its end. */
function recordingSpan(facts?: RequestFacts): RequestSpan & { record: Recorded } {
  const record: Recorded = { stages: [], ends: 0, ...(facts ? { facts } : {}) };
  return {
    record,
    stage: (name) => ({
      end: (decision, code) => {
        record.stages.push([name, decision, code].filter(Boolean).join(':'));
      },
    }),
    end(end) {
      record.end = end;
      record.ends++;
    },
  };
}

function recordingTelemetry() {
  const requests: Recorded[] = [];
  const approvals: string[] = [];
  const telemetry: Telemetry = {
    request(facts) {
      const span = recordingSpan(facts);
      requests.push(span.record);
      return span;
    },
    approval: (outcome, tool) => approvals.push(`${outcome} ${tool}`),
  };
  return { telemetry, requests, approvals };
}

const call = async (desk: PipelineDesk, name: string, args: object) => {
  const span = recordingSpan();
  const result = await desk.server.callTool(connection(), name, args, { span });
  return { result, ...span.record };
};

describe('telemetry: the stages of a call and how it ended', () => {
  it('reports a write’s rate token, guards, replay claim and unit of work, and ends it ok once', async () => {
    const desk = pipelineDesk();
    const write = await call(desk, 'add_note', { text: 'milk' });
    expect(write.stages).toEqual([
      'rate:pass',
      'guard call guard:pass',
      'replay:pass',
      'guard unit guard:pass',
      'unit_of_work:pass',
    ]);
    expect(write.end).toMatchObject({ outcome: 'ok', tenantId: 't1', connectionId: 'c1' });
    expect(write.end?.correlationId).toMatch(/^[0-9A-Z]{26}$/);
    expect(write.ends).toBe(1);
  });

  it('reports a re-sent write as a replay, and a refusal with its code at the stage and at the end', async () => {
    const desk = pipelineDesk();
    await call(desk, 'add_note', { text: 'milk' });
    const again = await call(desk, 'add_note', { text: 'milk' });
    expect(again.stages).toContain('replay:replay');
    expect(again.end?.outcome).toBe('replayed');

    desk.toggles.addRefuses = true;
    const refused = await call(desk, 'add_note', { text: 'bread' });
    expect(refused.stages).toContain('guard unit guard:refuse:conflict');
    expect(refused.stages).toContain('unit_of_work:refuse:conflict');
    expect(refused.end).toMatchObject({ outcome: 'refused', code: 'conflict' });
  });

  it('reports a preview, then a confirmation with its confirm stage, counted as confirmed', async () => {
    const desk = pipelineDesk();
    const preview = await call(desk, 'notify_owner', { note_id: 'n1' });
    expect(preview.end?.outcome).toBe('preview');
    const { confirm_token, confirm_summary } = structured(preview.result) as unknown as Record<
      string,
      string
    >;
    const confirmed = await call(desk, 'confirm_action', { confirm_token, confirm_summary });
    expect(confirmed.stages).toContain('confirm:pass');
    expect(confirmed.end).toMatchObject({ outcome: 'ok', confirmed: true });
    const reused = await call(desk, 'confirm_action', { confirm_token, confirm_summary: 'other' });
    expect(codeOf(reused.result)).toBe('confirm_used');
    expect(reused.stages).toContain('confirm:refuse:confirm_used');
    expect(reused.end).toMatchObject({ outcome: 'refused', code: 'confirm_used', confirmed: false });
  });

  it('reports a person’s action as approval, and each decision on the page', async () => {
    const recorded = recordingTelemetry();
    const desk = pipelineDesk({ notifyApproval: 'person', telemetry: recorded.telemetry });
    const preview = await call(desk, 'notify_owner', { note_id: 'n1' });
    expect(preview.end?.outcome).toBe('approval');
    const id = (structured(preview.result) as unknown as Record<string, string>).pending_action_id!;
    const approver = {
      personId: 'p1',
      tenantId: 't1',
      rights: new Set(['notes.read', 'notes.write'] as const),
    };
    const view = await desk.server.approvals!.view(id, approver);
    await desk.server.approvals!.approve(id, approver, { contentHash: view!.contentHash! });
    await desk.server.approvals!.approve(id, approver, { contentHash: view!.contentHash! });
    expect(recorded.approvals).toEqual(['executed notify_owner', 'refused (any)']);
  });
});

describe('telemetry: through a transport', () => {
  it('starts a span per tools/list and tools/call with the request’s facts and the client’s trace context', async () => {
    const recorded = recordingTelemetry();
    const app = notesServer({ telemetry: recorded.telemetry });
    await using served = await listen(app.server);
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const headers = { authorization: `Bearer ${TOKEN_T1}` };
    const response = await fetch(createRequest(served.url, headers, 'traced note', { traceparent }));
    expect(response.status).toBe(200);
    const [request] = recorded.requests;
    expect(request?.facts).toMatchObject({
      method: 'tools/call',
      tool: 'add_note',
      transport: 'http',
      protocolVersion: '2026-07-28',
      traceparent,
    });
    expect(request?.facts?.requestId).toBeDefined();
    expect(request?.end?.outcome).toBe('ok');
    expect(request?.ends).toBe(1);
  });

  it('reports a tool name the server does not serve as (unknown), and the 2025 era’s version from its header', async () => {
    const recorded = recordingTelemetry();
    const app = notesServer({ telemetry: recorded.telemetry });
    await using served = await listen(app.server);
    const post = (headers: Record<string, string>, body: object) =>
      fetch(served.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${TOKEN_T1}`,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, ...body }),
      });
    await post(
      { 'mcp-protocol-version': '2025-11-25' },
      {
        method: 'tools/call',
        params: { name: '<script>drop_all', arguments: {} },
      },
    );
    expect(recorded.requests[0]?.facts).toMatchObject({ tool: '(unknown)', protocolVersion: '2025-11-25' });
    expect(recorded.requests[0]?.end).toMatchObject({ outcome: 'refused', code: 'unknown_tool' });
  });
});
