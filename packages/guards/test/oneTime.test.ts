import {
  type Authenticate,
  createGatehouse,
  digest,
  MemoryAuditStore,
  MemoryReplayStore,
  type Presenter,
  separateCommits,
} from '@gatehousejs/core';
import { definePresenter, field } from '@gatehousejs/presenters';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';

const keyPresenter = definePresenter({
  fields: { id: field.string(), label: field.string(), secret: field.string().oneTime() },
});

describe('replayGuard with one-time fields (I10, I17)', () => {
  it('answers a replay without the one-time secret, says it is withheld, and never stores it', async () => {
    let issued = 0;
    const gh = createGatehouse({ rights: ['keys.write'] as const, services: () => ({}) });
    const issueKey = gh.defineTool({
      name: 'issue_key',
      description: 'Issues an access key for an integration.',
      effect: 'write',
      input: z.object({ label: z.string() }),
      presenter: keyPresenter as unknown as Presenter<{ id: string; label: string; secret: string }>,
      run: ({ input }) => {
        issued++;
        return { id: `key_${issued}`, label: input.label, secret: `SECRET-ONCE-${issued}` };
      },
    });
    const replay = new MemoryReplayStore();
    const audit = new MemoryAuditStore();
    const internal: unknown[] = [];
    const authenticate: Authenticate<'keys.write'> = async () => ({
      ok: false,
      status: 401,
      reason: 'unused',
    });
    const server = gh.createServer(
      withGuards({
        name: 'keys',
        version: '1',
        tools: [issueKey],
        authenticate,
        audit,
        replay: { store: replay },
        unitOfWork: separateCommits(),
        onError: (error) => internal.push(error),
      }),
    );
    const connection = {
      connectionId: 'c1',
      tenantId: 't1',
      creatorId: 'p1',
      clientName: 'x',
      channel: 'mcp' as const,
      rights: new Set(['keys.write'] as const),
    };

    const first = await server.callTool(connection, 'issue_key', { label: 'crm' }, { requestId: 1 });
    const again = await server.callTool(connection, 'issue_key', { label: 'crm' }, { requestId: 2 });
    expect(internal).toEqual([]);
    expect(first.structuredContent).toMatchObject({ result: { id: 'key_1', secret: 'SECRET-ONCE-1' } });
    expect(again.structuredContent).toMatchObject({
      replayed: true,
      result: { id: 'key_1', withheld: ['secret'] },
    });
    expect(JSON.stringify(again)).not.toContain('SECRET-ONCE');
    expect(issued).toBe(1);
    expect(audit.rows.map((r) => [r.action, r.objectIds])).toEqual([['issue_key', ['key_1']]]);
    expect(JSON.stringify(audit.rows)).not.toContain('SECRET-ONCE');
    const key = digest({ label: 'crm' });
    const record = await replay.begin(`c1\u0000issue_key\u0000${key}`, key, 1_000, Date.now());
    expect(record).toMatchObject({ state: 'completed', result: { id: 'key_1', withheld: ['secret'] } });
    expect(JSON.stringify(record)).not.toContain('SECRET-ONCE');
  });
});
