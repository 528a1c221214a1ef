/**
 * The official SDK clients as contract clients (`test/sdkClients.ts`): they
 * really speak for themselves (the audit row names the SDK client from its
 * handshake), the gate's refusals reach the checks with their status, and
 * a broken host still fails a check when the suite runs through them.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type SdkClientKind, sdkClient } from '../../../../test/sdkClients.js';
import { runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';
import { startNotesHost } from './host/notesHost.js';
import { serveOnV1 } from './v1Host/serveV1.js';

const KINDS: readonly SdkClientKind[] = ['v1', 'v2-legacy'];
const era = '2025-11-25' as const;
const gateScript = fileURLToPath(new URL('./fixtures/gateStdio.mjs', import.meta.url));

describe.each(KINDS)('the %s SDK client as a contract client', (kind) => {
  it('over Streamable HTTP: shakes hands as itself, writes, reads a kill switch as 503 with Retry-After', async () => {
    const handshakes: string[] = [];
    const host = await startNotesHost({}, serveOnV1('stateful', [], handshakes));
    const client = await sdkClient(kind)({ endpoint: host.endpoint, era }, await host.mint(host.home));
    try {
      const listed = await client.list();
      expect(listed.status).toBe(200);
      expect(((listed.result?.tools ?? []) as { name: string }[]).map((t) => t.name)).toContain(
        'create_note',
      );
      const created = await client.call('create_note', { title: 'Gas meter', body: 'Read it.' });
      expect([created.status, created.result?.structuredContent]).toMatchObject([200, { status: 'ok' }]);
      expect(host.data.notes.filter((n) => n.title === 'Gas meter')).toHaveLength(1);
      expect((await host.auditRows?.())?.at(-1)).toMatchObject({ channel: 'mcp', action: 'create_note' });
      expect(handshakes).toEqual([`contract-${kind}`]);

      await host.setGlobalSwitch(true);
      const paused = await client.call('get_note', { id: 'n1' });
      expect([paused.status, paused.retryAfter, paused.rpcError?.code]).toEqual([503, '30', -32053]);
      await host.setGlobalSwitch(false);
      expect((await client.call('get_note', { id: 'n1' })).status).toBe(200);
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('over Streamable HTTP without a credential: the refused handshake is the reply', async () => {
    const host = await startNotesHost({}, serveOnV1('stateless'));
    const client = await sdkClient(kind)({ endpoint: host.endpoint, era }, undefined);
    try {
      const refused = await client.list();
      expect([refused.status, refused.result]).toEqual([401, undefined]);
    } finally {
      await client.close();
      await host.close();
    }
  });

  it('over stdio: reads the gate status from the JSON-RPC error', async () => {
    const endpoint = (env: Record<string, string> = {}) => ({
      transport: 'stdio' as const,
      command: process.execPath,
      args: [gateScript],
      env,
      tokenVariable: 'GH_TOKEN',
    });
    const good = await sdkClient(kind)({ endpoint: endpoint(), era }, 'good');
    const wrong = await sdkClient(kind)({ endpoint: endpoint(), era }, 'wrong');
    const paused = await sdkClient(kind)({ endpoint: endpoint({ GH_PAUSED: '1' }), era }, 'good');
    try {
      expect((await good.call('ping', {})).result?.structuredContent).toEqual({ status: 'ok', result: {} });
      const refused = await wrong.call('ping', {});
      expect([refused.status, refused.rpcError?.code]).toEqual([401, -32041]);
      const held = await paused.call('ping', {});
      expect([held.status, held.retryAfter]).toEqual([503, '30']);
    } finally {
      await Promise.all([good.close(), wrong.close(), paused.close()]);
    }
  });

  it('lets the suite catch a host that ignores the kill switch', async () => {
    const broken = { ...notesFixture({ ignoresKillSwitch: true }), era, client: sdkClient(kind) };
    const outcomes = await runContractCheck(broken, 'I6.global-switch', { tools: ['create_note'] });
    expect(outcomes.map((o) => o.status)).toContain('failed');
    expect(outcomes.flatMap((o) => o.findings).join('\n')).toMatch(/not 503/);
  });
});
