/**
 * A team's own guard of each kind, typed end to end (the desk of
 * examples/ownGuards.ts): each refusal reaches what the caller and the
 * operator see — tools/list, the envelope, the log line and the span — and
 * each guard's effect on what was written is checked, not only its answer.
 */
import type { CallResult, JsonObject, Logger, Telemetry } from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { RawHttpClient } from '@gatehousejs/testing';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ownGuardsDesk } from './examples/ownGuards.js';

const connection = (tenantId = 'ws_1') => ({
  connectionId: `c_${tenantId}`,
  tenantId,
  creatorId: 'p1',
  clientName: 'desk',
  channel: 'mcp' as const,
  rights: new Set(['notes.read', 'notes.write'] as const),
});

/** Log lines and stage spans, recorded. */
function recorded() {
  const lines: { level: string; record: Record<string, unknown>; message?: string }[] = [];
  const line = (level: string) => (record: object, message?: string) =>
    void lines.push({ level, record: record as Record<string, unknown>, message });
  const logger: Logger = { info: line('info'), warn: line('warn'), error: line('error') };
  const stages: string[] = [];
  const ends: Record<string, unknown>[] = [];
  const refused: { status: number; step: string }[] = [];
  const telemetry: Telemetry = {
    request: () => ({
      stage: (name) => ({
        end: (decision, code) => void stages.push([name, decision, code].filter(Boolean).join(':')),
      }),
      end: (end) => void ends.push({ ...end }),
    }),
    refused: (event) => void refused.push({ status: event.status, step: event.step }),
  };
  return { logger, telemetry, lines, stages, ends, refused };
}

const error = (result: CallResult) => (result.structuredContent as { error?: { code: string } }).error;
const codes = (lines: { record: Record<string, unknown> }[]) =>
  lines.map((l) => l.record.code).filter(Boolean);

/** A desk on a clock the test moves, with its log and spans recorded. */
function desk(options: { perDay?: number; at?: string } = {}) {
  const seen = recorded();
  const clock = { now: Date.parse(options.at ?? '2030-05-04T10:00:00Z') };
  const built = ownGuardsDesk({
    logger: seen.logger,
    telemetry: seen.telemetry,
    clock: () => new Date(clock.now),
    ...(options.perDay ? { perDay: options.perDay } : {}),
  });
  const call = async (name: string, args: JsonObject, tenant = 'ws_1') => {
    const span = seen.telemetry.request({ method: 'tools/call', tool: name, transport: 'http' });
    return built.server.callTool(connection(tenant), name, args, { span });
  };
  return { ...built, ...seen, clock, call };
}

describe('a team’s own guards, one of each kind', () => {
  it('admission: a maintenance window answers 503 with Retry-After before credentials, logged and counted', async () => {
    const d = desk();
    await using served = await listen(d.server);
    const client = new RawHttpClient({
      url: served.url,
      era: '2026-07-28',
      headers: { authorization: 'Bearer desk-token' },
    });
    expect((await client.listTools()).status).toBe(200);
    d.maintenance.open = true;
    const refused = await client.listTools();
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('600');
    expect(refused.text).toContain('Down for maintenance until 06:00 UTC.');
    expect(d.notes).toEqual([]);
    expect(d.refused).toContainEqual({ status: 503, step: 'guard' });
    expect(d.lines.some((l) => String(l.record.reason).includes('maintenance'))).toBe(true);
  });

  it('visibility: a beta tool is absent from other workspaces’ tools/list, and calling it answers the reason', async () => {
    const d = desk();
    expect((await d.server.listTools(connection('ws_1'))).map((t) => t.name)).not.toContain('beta_report');
    expect((await d.server.listTools(connection('ws_beta'))).map((t) => t.name)).toContain('beta_report');
    const hidden = await d.call('beta_report', { internal: false });
    expect(hidden.isError).toBe(true);
    expect(hidden.content[0].text).toMatch(/^Error: beta_report is hidden: it is in beta/);
    expect(error(hidden)).toMatchObject({ code: 'tool_hidden', details: { tool: 'beta_report' } });
    expect(codes(d.lines)).toEqual(['tool_hidden']);
    expect(d.ends.at(-1)).toMatchObject({ outcome: 'refused', code: 'tool_hidden' });
    expect(await d.call('beta_report', { internal: false }, 'ws_beta')).toMatchObject({
      structuredContent: { status: 'ok' },
    });
  });

  it('rate: the daily quota refuses the third call of two, and a replay gives its call back', async () => {
    const d = desk({ perDay: 2 });
    await d.call('add_note', { text: 'boiler' });
    expect(await d.call('add_note', { text: 'boiler' })).toMatchObject({
      structuredContent: { replayed: true },
    });
    await d.call('add_note', { text: 'valve' });
    const refused = await d.call('add_note', { text: 'pump' });
    expect(error(refused)).toMatchObject({ code: 'rate_limited' });
    expect(d.notes.map((n) => [n.text, n.hour])).toEqual([
      ['boiler', 10],
      ['valve', 10],
    ]);
    expect(d.stages).toContain('rate:refuse:rate_limited');
    expect(codes(d.lines)).toEqual(['rate_limited']);
  });

  it('call: business hours refuse a write at night, and hand the hour to run by day, typed', async () => {
    const d = desk({ at: '2030-05-04T23:00:00Z' });
    const night = await d.call('add_note', { text: 'boiler' });
    expect(error(night)).toMatchObject({ code: 'invalid_arguments' });
    expect(d.stages).toContain('guard businessHours:refuse:invalid_arguments');
    expect(d.notes).toEqual([]);
    expect(d.audit.rows).toEqual([]);
    d.clock.now = Date.parse('2030-05-05T09:00:00Z');
    expect(await d.call('add_note', { text: 'boiler' })).toMatchObject({
      structuredContent: { status: 'ok', result: { text: 'boiler', hour: 9 } },
    });
    expectTypeOf<Parameters<typeof desk>[0]>().toEqualTypeOf<{ perDay?: number; at?: string } | undefined>();
  });

  it('claim: the team’s own replay answers a re-sent write from its record: one note, one audit row', async () => {
    const d = desk();
    const first = await d.call('add_note', { text: 'boiler' });
    const again = await d.call('add_note', { text: 'boiler' });
    expect(again.structuredContent).toEqual({
      ...first.structuredContent,
      replayed: true,
      replay_note: expect.any(String),
    });
    expect(d.notes).toHaveLength(1);
    expect(d.audit.rows.map((r) => r.action)).toEqual(['add_note']);
    expect(d.stages.filter((s) => s.startsWith('replay'))).toEqual(['replay:pass', 'replay:replay']);
  });

  it('unit: the same text again is a duplicate inside the unit of work: nothing written, the claim released', async () => {
    const d = desk();
    await d.call('add_note', { text: 'boiler' });
    d.clock.now += 600_000; // past the claim's window: the same call runs again, and meets the unit guard
    const duplicate = await d.call('add_note', { text: 'boiler' });
    expect(error(duplicate)).toMatchObject({ code: 'duplicate', details: { existing_id: 'n1' } });
    expect(d.stages).toContain('guard sameText:refuse:duplicate');
    expect(d.stages).toContain('unit_of_work:refuse:duplicate');
    expect(d.notes).toHaveLength(1);
    expect(d.audit.rows).toHaveLength(1);
    expect(codes(d.lines)).toEqual(['duplicate']);
  });

  it('outward: the team’s own pending actions, and core’s I9 table on them: a wrong summary kills the token', async () => {
    const d = desk();
    await d.call('add_note', { text: 'boiler' });
    const preview = (await d.call('mail_note', { id: 'n1' })).structuredContent as JsonObject;
    expect(preview).toMatchObject({ status: 'PREVIEW', confirm_token: expect.stringMatching(/^tk_/) });
    const token = preview.confirm_token as string;
    const wrong = await d.call('confirm_action', { confirm_token: token, confirm_summary: 'Mail all notes' });
    expect(error(wrong)).toMatchObject({ code: 'confirm_summary_mismatch' });
    const right = await d.call('confirm_action', {
      confirm_token: token,
      confirm_summary: preview.confirm_summary as string,
    });
    expect(error(right)).toMatchObject({ code: 'confirm_used' });
    expect(d.mails).toEqual([]);
    const again = (await d.call('mail_note', { id: 'n1' })).structuredContent as JsonObject;
    const sent = await d.call('confirm_action', {
      confirm_token: again.confirm_token as string,
      confirm_summary: again.confirm_summary as string,
    });
    expect(sent.structuredContent).toMatchObject({ status: 'ok', result: { result: { sent: 1 } } });
    expect(d.mails).toEqual(['boiler']);
    expect(codes(d.lines)).toEqual(['confirm_summary_mismatch', 'confirm_used']);
  });

  it('output: a result naming an internal host leaves as internal_error, logged by guard name, never the value', async () => {
    const d = desk();
    const leaked = await d.call('beta_report', { internal: true }, 'ws_beta');
    expect(error(leaked)).toMatchObject({ code: 'internal_error' });
    expect(JSON.stringify(leaked)).not.toContain('db-3.internal');
    expect(d.lines.at(-2)).toMatchObject({
      level: 'error',
      message: 'result refused by an output guard',
      record: { tool: 'beta_report', guard: 'noInternalHosts' },
    });
    expect(JSON.stringify(d.lines)).not.toContain('db-3.internal');
    expect(d.ends.at(-1)).toMatchObject({ outcome: 'internal_error', code: 'internal_error' });
  });
});
