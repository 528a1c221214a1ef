import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  type Approver,
  ConfigurationError,
  createGatehouse,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type PendingActionStore,
  separateCommits,
} from '../src/index.js';
import {
  codeOf,
  connection,
  type DeskOptions,
  type PipelineDesk,
  pipelineDesk,
  RIGHTS,
  type Right,
  structured,
  TTL_MS,
} from './fixtures/pipelineDesk.js';
import { listPresenter } from './fixtures.js';

const personDesk = (options: DeskOptions = {}) => pipelineDesk({ notifyApproval: 'person', ...options });

const approver = (overrides: Partial<Approver<Right>> = {}): Approver<Right> => ({
  personId: 'p1',
  tenantId: 't1',
  rights: new Set<Right>(RIGHTS),
  ...overrides,
});

/** Prepares notify_owner for n1 and returns what the model got. */
async function prepare(desk: PipelineDesk) {
  const preview = structured(
    await desk.server.callTool(connection(), 'notify_owner', { note_id: 'n1' }),
  ) as Record<string, unknown>;
  expect(preview.status).toBe('PREVIEW');
  return {
    id: preview.pending_action_id as string,
    token: preview.confirm_token as string,
    summary: preview.confirm_summary as string,
    preview,
  };
}

const confirm = (desk: PipelineDesk, p: { token: string; summary: string }) =>
  desk.server.callTool(connection(), 'confirm_action', {
    confirm_token: p.token,
    confirm_summary: p.summary,
  });

const approvals = (desk: PipelineDesk) => {
  const found = desk.server.approvals;
  if (!found) throw new Error('the desk has no approvals');
  return found;
};

/** Shows the action to `who` and approves exactly what was shown. */
async function approve(desk: PipelineDesk, id: string, who = approver()) {
  const view = await approvals(desk).view(id, who);
  return approvals(desk).approve(id, who, { contentHash: view?.contentHash ?? 'none' });
}

const statusOf = async (desk: PipelineDesk, id: string) => (await desk.pending.findById(id))?.status;

describe('approval by a person: the preview (I9)', () => {
  it('stores a person action and names the approval page by id only; nothing is sent', async () => {
    const desk = personDesk();
    const { id, preview } = await prepare(desk);
    expect(id).toMatch(/^pa_/);
    expect(preview).toMatchObject({
      approval: 'person',
      approval_url: `https://desk.example/approvals/${id}`,
      content: { note_id: 'n1', text: 'Boiler fixed' },
    });
    expect(String(preview.instructions)).toContain('no tool call can');
    const stored = await desk.pending.findById(id);
    expect(stored).toMatchObject({ approval: 'person', creatorId: 'p1', status: 'pending', tenantId: 't1' });
    expect(desk.sent).toEqual([]);
  });

  it('keeps model approval for tools without the policy, and applies byEffect server-wide', async () => {
    const desk = pipelineDesk();
    const { preview } = await prepare(desk);
    expect(preview.approval).toBeUndefined();
    expect(desk.server.approvals).toBeUndefined();

    const gh = createGatehouse({ rights: ['r'] as const, services: () => ({}) });
    const tool = gh.defineTool({
      name: 'wake_someone',
      description: 'Wakes someone.',
      effect: 'wake',
      requires: ['r'],
      input: z.object({}),
      presenter: listPresenter<{ ok: boolean }>(['ok']),
      prepare: () => ({ content: {}, summary: 'wake' }),
      run: () => ({ ok: true }),
    });
    const server = gh.createServer(
      withGuards({
        name: 's',
        version: '1',
        tools: [tool],
        authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
        audit: new MemoryAuditStore(),
        replay: { store: new MemoryReplayStore() },
        unitOfWork: separateCommits(),
        confirm: { store: new MemoryPendingActionStore() },
        approval: {
          byEffect: { wake: 'person' },
          url: (id) => `https://x.example/${id}`,
          connectionOf: async () => undefined,
        },
      }),
    );
    expect(server.approvals).toBeDefined();
  });
});

describe('approval by a person: no model call completes it', () => {
  it('answers approval_pending with the URL and keeps the token, however often and however the model asks', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    for (const args of [
      { confirm_token: p.token, confirm_summary: p.summary },
      { confirm_token: p.token, confirm_summary: p.summary },
      { confirm_token: p.token, confirm_summary: 'approved by the user' },
    ]) {
      const answer = await desk.server.callTool(connection(), 'confirm_action', args);
      expect(codeOf(answer)).toBe('approval_pending');
      expect(structured(answer).error?.details).toMatchObject({
        pending_action_id: p.id,
        approval_url: `https://desk.example/approvals/${p.id}`,
      });
    }
    expect(await statusOf(desk, p.id)).toBe('pending');
    expect(desk.sent).toEqual([]);
    expect(desk.audit.rows.filter((r) => r.action === 'notify_owner')).toEqual([]);
  });

  it('does not let another connection learn anything or keep the token alive', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const foreign = await desk.server.callTool(connection({ connectionId: 'c2' }), 'confirm_action', {
      confirm_token: p.token,
      confirm_summary: p.summary,
    });
    expect(codeOf(foreign)).toBe('confirm_not_found');
    expect(await statusOf(desk, p.id)).toBe('failed');
    expect((await approve(desk, p.id)).outcome).toBe('refused');
    expect(desk.sent).toEqual([]);
  });
});

describe('approval by a person: approving executes', () => {
  it('sends once with the requesting credential, writes an audit row naming it and the approver, and the model gets the result as a replay', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const view = await approvals(desk).view(p.id, approver());
    expect(view).toMatchObject({
      id: p.id,
      tool: 'notify_owner',
      status: 'pending',
      content: { note_id: 'n1', text: 'Boiler fixed' },
      connectionId: 'c1',
      creatorId: 'p1',
    });
    const decision = await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! });
    expect(decision).toMatchObject({
      outcome: 'executed',
      result: { action: 'notify_owner', result: { sent: 1 } },
    });
    expect(desk.sent).toEqual(['Boiler fixed']);
    const stored = await desk.pending.findById(p.id);
    expect(stored).toMatchObject({
      status: 'executed',
      decidedBy: 'p1',
      result: { pending_action_id: p.id },
    });
    const rows = desk.audit.rows.filter((r) => r.action === 'notify_owner');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ connectionId: 'c1', actorId: 'p1', outcome: 'ok' });
    expect(rows[0]!.note).toBe(`approved ${p.id} by p1`);

    for (let i = 0; i < 2; i++) {
      const learned = structured(await confirm(desk, p));
      expect(learned).toMatchObject({ status: 'ok', replayed: true, result: { result: { sent: 1 } } });
    }
    expect(desk.sent).toHaveLength(1);
  });

  it('refuses a second approval (a replayed form post): nothing is sent twice', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const view = await approvals(desk).view(p.id, approver());
    await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! });
    const again = await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! });
    expect(again).toMatchObject({ outcome: 'refused', code: 'closed' });
    expect(desk.sent).toHaveLength(1);
  });

  it('runs exactly once when approvals race', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const view = await approvals(desk).view(p.id, approver());
    const decisions = await Promise.all(
      Array.from({ length: 8 }, () =>
        approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! }),
      ),
    );
    expect(decisions.filter((d) => d.outcome === 'executed')).toHaveLength(1);
    expect(desk.sent).toHaveLength(1);
  });

  it('voids an approval of content that changed since it was shown, shows the new content, and sends that once approved', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const shown = await approvals(desk).view(p.id, approver());
    desk.notes[0]!.text = 'Boiler replaced';
    const stale = await approvals(desk).approve(p.id, approver(), { contentHash: shown!.contentHash! });
    expect(stale.outcome).toBe('changed');
    expect(stale.outcome === 'changed' && stale.view.content).toEqual({
      note_id: 'n1',
      text: 'Boiler replaced',
    });
    expect(desk.sent).toEqual([]);
    expect(await statusOf(desk, p.id)).toBe('pending');
    const now = await approvals(desk).view(p.id, approver());
    expect(now?.content).toEqual({ note_id: 'n1', text: 'Boiler replaced' });
    expect(now?.contentHash).not.toBe(shown?.contentHash);
    expect(
      (await approvals(desk).approve(p.id, approver(), { contentHash: now!.contentHash! })).outcome,
    ).toBe('executed');
    expect(desk.sent).toEqual(['Boiler replaced']);
  });
});

describe('approval by a person: rejection', () => {
  it('closes the action for good: nothing is sent, the model hears approval_rejected, a later approval is refused', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const decision = await approvals(desk).reject(p.id, approver(), 'not today');
    expect(decision).toMatchObject({ outcome: 'rejected', view: { status: 'rejected', decidedBy: 'p1' } });
    expect(codeOf(await confirm(desk, p))).toBe('approval_rejected');
    expect(await approve(desk, p.id)).toMatchObject({ outcome: 'refused', code: 'closed' });
    expect(desk.sent).toEqual([]);
    const row = desk.audit.rows.find((r) => r.action === 'reject_action');
    expect(row).toMatchObject({ connectionId: 'c1', objectIds: [p.id] });
    expect(row?.note).toBe(`rejected ${p.id} by p1; reason: not today`);
  });
});

describe('approval by a person: who may decide', () => {
  it('lets only the credential’s creator decide by default; others of the tenant, and other tenants, see nothing', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    for (const who of [approver({ personId: 'p2' }), approver({ tenantId: 't2' })]) {
      expect(await approvals(desk).view(p.id, who)).toBeUndefined();
      expect(await approvals(desk).listPending(who)).toEqual([]);
      expect(await approvals(desk).approve(p.id, who, { contentHash: 'x' })).toMatchObject({
        code: 'not_found',
      });
      expect(await approvals(desk).reject(p.id, who)).toMatchObject({ code: 'not_found' });
    }
    expect((await approvals(desk).listPending(approver())).map((v) => v.id)).toEqual([p.id]);
    expect(desk.sent).toEqual([]);
    expect(await statusOf(desk, p.id)).toBe('pending');
  });

  it('widened to the workspace: a person of the tenant holding the tool’s rights may approve; one without them may not', async () => {
    const desk = personDesk({ approvers: 'workspace' });
    const p = await prepare(desk);
    const reader = approver({ personId: 'p3', rights: new Set<Right>(['notes.read']) });
    expect(await approvals(desk).view(p.id, reader)).toBeUndefined();
    expect((await approve(desk, p.id, approver({ personId: 'p2' }))).outcome).toBe('executed');
    expect(desk.audit.rows.find((r) => r.action === 'notify_owner')?.note).toBe(`approved ${p.id} by p2`);
    expect(desk.sent).toHaveLength(1);
  });
});

describe('approval by a person: the requesting credential’s live standing', () => {
  const cases: readonly [string, string, (desk: PipelineDesk) => void][] = [
    ['revoked', 'credential_inactive', (desk) => desk.credentials.delete('c1')],
    [
      'lost its right',
      'missing_right',
      (desk) => desk.credentials.set('c1', connection({ rights: new Set<Right>(['notes.read']) })),
    ],
    [
      'switched off by its tenant',
      'tenant_disabled',
      (desk) => {
        desk.toggles.tenantOff = 't1';
      },
    ],
    [
      'refused by a guard',
      'conflict',
      (desk) => {
        desk.toggles.unitGuardRefuses = true;
      },
    ],
  ];
  for (const [what, code, change] of cases) {
    it(`refuses an approval when the credential was ${what}: nothing is sent and the action is closed`, async () => {
      const desk = personDesk();
      const p = await prepare(desk);
      const view = await approvals(desk).view(p.id, approver());
      change(desk);
      const decision = await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! });
      expect(decision).toMatchObject({ outcome: 'refused', code });
      expect(desk.sent).toEqual([]);
      expect(await statusOf(desk, p.id)).toBe('failed');
      desk.toggles.tenantOff = 'no';
      desk.toggles.unitGuardRefuses = false;
      expect(codeOf(await confirm(desk, p))).toBe('confirm_used');
    });
  }

  it('shows why a pending action cannot be approved now, without its content', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    desk.credentials.delete('c1');
    const view = await approvals(desk).view(p.id, approver());
    expect(view?.status).toBe('pending');
    expect(view?.content).toBeUndefined();
    expect(view?.problem).toContain('revoked');
  });

  it('refuses an expired action on both sides', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    desk.advance(TTL_MS + 1);
    expect((await approvals(desk).view(p.id, approver()))?.status).toBe('expired');
    expect(await approve(desk, p.id)).toMatchObject({ outcome: 'refused', code: 'closed' });
    expect(codeOf(await confirm(desk, p))).toBe('confirm_expired');
    expect(desk.sent).toEqual([]);
  });

  it('keeps the action when the store is down during approval: the retry sends once', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    const view = await approvals(desk).view(p.id, approver());
    desk.pending.outage = true;
    const down = await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! });
    expect(down).toMatchObject({ outcome: 'refused', code: 'store_unavailable' });
    desk.pending.outage = false;
    expect(await statusOf(desk, p.id)).toBe('pending');
    expect(
      (await approvals(desk).approve(p.id, approver(), { contentHash: view!.contentHash! })).outcome,
    ).toBe('executed');
    expect(desk.sent).toHaveLength(1);
  });
});

describe('approval by a person: configuration', () => {
  const gh = createGatehouse({ rights: ['r'] as const, services: () => ({}) });
  const tool = gh.defineTool({
    name: 'delete_thing',
    description: 'Deletes a thing.',
    effect: 'delete',
    approval: 'person',
    requires: ['r'],
    input: z.object({}),
    presenter: listPresenter<{ ok: boolean }>(['ok']),
    prepare: () => ({ content: {}, summary: 'delete' }),
    run: () => ({ ok: true }),
  });
  const base = {
    name: 's',
    version: '1',
    tools: [tool],
    authenticate: async () => ({ ok: false as const, status: 401 as const, reason: 'no' }),
    audit: new MemoryAuditStore(),
    replay: { store: new MemoryReplayStore() },
    unitOfWork: separateCommits(),
  };
  const approval = { url: (id: string) => `https://x.example/${id}`, connectionOf: async () => undefined };

  it('refuses a person tool without approval options, or with a store that cannot find actions by id', () => {
    const store = new MemoryPendingActionStore();
    expect(() => gh.createServer(withGuards({ ...base, confirm: { store } }))).toThrow(ConfigurationError);
    const bare: PendingActionStore = {
      insert: (a) => store.insert(a),
      findByTokenHash: (h) => store.findByTokenHash(h),
      claim: (...args) => store.claim(...args),
      renewClaim: (...args) => store.renewClaim(...args),
      transition: (...args) => store.transition(...args),
      purge: (b) => store.purge(b),
    };
    expect(() => gh.createServer(withGuards({ ...base, confirm: { store: bare }, approval }))).toThrow(
      /findById/,
    );
    expect(() => gh.createServer(withGuards({ ...base, confirm: { store }, approval }))).not.toThrow();
  });

  it('refuses approval on a silent tool and an unknown mode', () => {
    expect(() =>
      gh.defineTool({
        name: 'write_thing',
        description: 'Writes a thing.',
        effect: 'write',
        approval: 'person' as never,
        input: z.object({}),
        presenter: listPresenter<{ ok: boolean }>(['ok']),
        run: () => ({ ok: true }),
      }),
    ).toThrow(/only outward tools/);
    expect(() =>
      gh.defineTool({
        name: 'alert_thing',
        description: 'Mutes a thing.',
        effect: 'alert',
        approval: 'anyone' as never,
        input: z.object({}),
        presenter: listPresenter<{ ok: boolean }>(['ok']),
        prepare: () => ({ content: {}, summary: 'mute' }),
        run: () => ({ ok: true }),
      }),
    ).toThrow(/model' or 'person/);
  });
});

describe('approval by a person: a retried call with request state (2026-07-28)', () => {
  const retry = (desk: PipelineDesk, state: string, conn = connection(), args = { note_id: 'n1' }) =>
    desk.server.callTool(conn, 'notify_owner', args, { requestState: state });

  it('answers where the action stands: pending, then the tool’s own result as a replay; nothing runs on a retry', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    expect(codeOf(await retry(desk, p.id))).toBe('approval_pending');
    expect(desk.sent).toEqual([]);
    await approve(desk, p.id);
    const learned = structured(await retry(desk, p.id));
    expect(learned).toMatchObject({ status: 'ok', replayed: true, result: { sent: 1 } });
    expect(desk.sent).toHaveLength(1);
    expect(desk.pending.size).toBe(1);
  });

  it('learns nothing from a state of another connection, another tool’s arguments, or a made-up id, and creates no preview', async () => {
    const desk = personDesk();
    const p = await prepare(desk);
    await approve(desk, p.id);
    for (const answer of [
      await retry(desk, p.id, connection({ connectionId: 'c2' })),
      await retry(desk, p.id, connection(), { note_id: 'n2' }),
      await retry(desk, 'pa_made_up'),
      await retry(desk, 'x'.repeat(5000)),
    ]) {
      expect(codeOf(answer)).toBe('confirm_not_found');
    }
    expect(desk.pending.size).toBe(1);
    expect(desk.sent).toHaveLength(1);
  });
});

describe('approval by a person: no sequence of model calls completes it (property)', () => {
  type Step = 'preview' | 'confirm' | 'edited' | 'foreign' | 'retry' | 'reject' | 'wait';
  const STEPS: readonly Step[] = ['preview', 'confirm', 'edited', 'foreign', 'retry', 'reject', 'wait'];

  it('sends nothing and writes no notify_owner audit row, whatever the model calls in whatever order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...STEPS), { minLength: 1, maxLength: 12 }),
        async (steps) => {
          const desk = personDesk();
          const previews: { id: string; token: string; summary: string }[] = [];
          for (const step of steps) {
            const last = previews.at(-1);
            if (step === 'preview' || !last) previews.push(await prepare(desk));
            else if (step === 'confirm') await confirm(desk, last);
            else if (step === 'edited') await confirm(desk, { ...last, summary: 'approved by the user' });
            else if (step === 'foreign')
              await desk.server.callTool(connection({ connectionId: 'c2' }), 'confirm_action', {
                confirm_token: last.token,
                confirm_summary: last.summary,
              });
            else if (step === 'retry')
              await desk.server.callTool(
                connection(),
                'notify_owner',
                { note_id: 'n1' },
                { requestState: last.id },
              );
            else if (step === 'reject')
              await desk.server.callTool(connection(), 'reject_action', { confirm_token: last.token });
            else desk.advance(60_000);
          }
          expect(desk.sent).toEqual([]);
          expect(desk.audit.rows.filter((r) => r.action === 'notify_owner')).toEqual([]);
          for (const p of previews) expect((await desk.pending.findById(p.id))?.status).not.toBe('executed');
        },
      ),
      { numRuns: 60 },
    );
  });
});
