import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type HostEndpoint, openClient } from '../../src/index.js';

const script = fileURLToPath(new URL('./fixtures/gateStdio.mjs', import.meta.url));
const endpoint = (env: Record<string, string> = {}): HostEndpoint => ({
  transport: 'stdio',
  command: process.execPath,
  args: [script],
  env,
  tokenVariable: 'GH_TOKEN',
});

describe('openClient over stdio', () => {
  it('passes the token in the environment and reads gate errors as HTTP statuses', async () => {
    const seen: string[] = [];
    const target = {
      endpoint: endpoint(),
      era: '2026-07-28' as const,
      listener: (tool: string) => void seen.push(tool),
    };
    const good = await openClient(target, 'good');
    const bad = await openClient(target, 'wrong');
    try {
      expect((await good.list()).status).toBe(200);
      expect((await good.call('ping', {})).result?.structuredContent).toEqual({ status: 'ok', result: {} });
      const refused = await bad.call('ping', {});
      expect([refused.status, refused.rpcError?.code]).toEqual([401, -32041]);
      expect(seen).toEqual(['ping']);
    } finally {
      await Promise.all([good.close(), bad.close()]);
    }
  });

  it('reads a paused gate as 503 with the retry hint', async () => {
    const client = await openClient({ endpoint: endpoint({ GH_PAUSED: '1' }), era: '2026-07-28' }, 'good');
    try {
      const reply = await client.call('ping', {});
      expect([reply.status, reply.retryAfter]).toEqual([503, '30']);
    } finally {
      await client.close();
    }
  });
});
