import { readFileSync } from 'node:fs';
import { ERROR_CODES, OUTWARD_TOKEN_FATES, TOKEN_FATES, type TokenStage, tokenFate } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { ada, db, outbox, server } from './outwardTools.js';

const doc = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
const source = readFileSync(new URL('./outwardTools.ts', import.meta.url), 'utf8');

/** A region of outwardTools.ts (or of this file) as the docs quote it: nested region lines dropped, indentation removed. */
function region(name: string, text = source): string {
  const body = text.split(`// #region ${name}\n`)[1]?.split(`// #endregion ${name}`)[0] ?? '';
  const lines = body
    .trimEnd()
    .split('\n')
    .filter((line) => !/^\s*\/\/ #(end)?region /.test(line));
  const indent = Math.min(...lines.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

const quoted = (page: string, name: string, text?: string) => {
  const code = region(name, text);
  expect(code, name).not.toBe('');
  expect(doc(page), `${page} quotes ${name}`).toContain(`\`\`\`ts\n${code}\n\`\`\``);
};

type Structured = Record<string, unknown> & { error?: { code: string; details?: Record<string, unknown> } };
const call = (name: string, args: object) =>
  server.callTool(ada, name, args).then((r) => r.structuredContent as Structured);

describe('docs/confirm.md and docs/approval.md', () => {
  it('quote the outward tools and their server verbatim', () => {
    quoted('confirm.md', 'confirm-tool');
    quoted('confirm.md', 'confirm-server');
    quoted('approval.md', 'person-tool');
    quoted('approval.md', 'approval');
    quoted('approval.md', 'answer', readFileSync(new URL(import.meta.url), 'utf8'));
  });

  it('show the I9 table as core applies it, whatever outward guard is plugged in', () => {
    const rows = doc('confirm.md')
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .map((line) => line.split('|').map((cell) => cell.trim()))
      .map(([, stage = '', refusals = '', fate = '']) => ({
        stage: stage.replace(/`/g, ''),
        codes: [...refusals.matchAll(/`(\w+)`/g)].map((m) => m[1] ?? '').filter((c) => c in ERROR_CODES),
        fate: fate.match(/^`(\w+)`/)?.[1],
      }))
      .filter((row) => row.fate !== undefined);
    const stages: TokenStage[] = [...(Object.keys(TOKEN_FATES) as TokenStage[]), 'outward'];
    for (const [stage, fate] of Object.entries(TOKEN_FATES))
      expect(
        rows.filter((r) => r.stage === stage).map((r) => r.fate),
        stage,
      ).toEqual([fate]);
    for (const [code, fate] of Object.entries(OUTWARD_TOKEN_FATES))
      expect(rows.find((r) => r.stage === 'outward' && r.codes.includes(code))?.fate, code).toBe(fate);
    for (const row of rows) {
      expect(row.codes.length, row.stage).toBeGreaterThan(0);
      for (const code of row.codes) {
        for (const stage of row.stage === 'any stage' ? stages : [row.stage as TokenStage])
          expect(tokenFate(stage, code), `${stage} ${code}`).toBe(row.fate);
      }
    }
    expect(rows.find((r) => r.stage === 'any stage')?.codes).toEqual([
      'store_unavailable',
      'outcome_unknown',
    ]);
  });

  it('run the two-step confirm: nothing goes out on the first call, one mail on the confirmation', async () => {
    const preview = await call('notify_customer', { booking_id: 'bk_1' });
    expect(preview).toMatchObject({
      status: 'PREVIEW',
      confirm_summary: 'Mail a customer: mail ada@example.com about bk_1',
      content: { to: 'ada@example.com' },
    });
    expect(outbox).toEqual([]);
    const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
    const confirmed = await call('confirm_action', confirmation);
    expect(confirmed).toMatchObject({ status: 'ok', result: { result: { sent_to: 'ada@example.com' } } });
    expect(await call('confirm_action', confirmation)).toMatchObject({ replayed: true });
    expect(outbox).toHaveLength(1);
    const other = await call('notify_customer', { booking_id: 'bk_2' });
    const wrong = await call('confirm_action', {
      confirm_token: other.confirm_token,
      confirm_summary: 'send it',
    });
    expect(wrong.error?.code).toBe('confirm_summary_mismatch');
    const right = { confirm_token: other.confirm_token, confirm_summary: other.confirm_summary };
    expect((await call('confirm_action', right)).error?.code).toBe('confirm_used');
    expect(outbox).toHaveLength(1);
  });

  it('run approval by a person: the call answers where to approve, no model call deletes, the page does', async () => {
    // #region answer
    const { result, approval } = await server.answer(ada, 'delete_booking', { booking_id: 'bk_2' });
    // approval: { url: 'https://booking.example/approvals/pa_…', pendingActionId: 'pa_…' }
    // #endregion answer
    expect(approval?.url).toBe(`https://booking.example/approvals/${approval?.pendingActionId}`);
    const preview = result.structuredContent as Structured;
    expect(preview).toMatchObject({ status: 'PREVIEW', approval: 'person', approval_url: approval?.url });
    const confirmation = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
    expect((await call('confirm_action', confirmation)).error?.code).toBe('approval_pending');
    expect((await server.answer(ada, 'confirm_action', confirmation)).approval).toEqual(approval);
    expect(db.map((b) => b.id)).toContain('bk_2');
    const olivia = { personId: 'p_olivia', tenantId: 'ws_1', rights: new Set(['bookings.delete'] as const) };
    const asker = { personId: 'p_ada', tenantId: 'ws_1', rights: new Set(['bookings.delete'] as const) };
    const id = approval?.pendingActionId ?? '';
    expect(await server.approvals?.view(id, olivia)).toBeUndefined();
    const view = await server.approvals?.view(id, asker);
    const decision = await server.approvals?.approve(id, asker, { contentHash: view?.contentHash ?? '' });
    expect(decision).toMatchObject({ outcome: 'executed' });
    expect(db.map((b) => b.id)).toEqual(['bk_1']);
    expect(await call('confirm_action', confirmation)).toMatchObject({
      replayed: true,
      result: { result: { deleted: 'bk_2' } },
    });
  });
});
