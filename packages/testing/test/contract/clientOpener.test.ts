import { describe, expect, it } from 'vitest';
import { connectClient } from '../../src/contract/client.js';
import type { ClientOpener, ContractClient, ContractReply } from '../../src/index.js';
import { openClient, runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';

const ok: ContractReply = {
  status: 200,
  retryAfter: undefined,
  result: { structuredContent: { status: 'ok', result: {} } },
  rpcError: undefined,
  failure: undefined,
};

/** An opener whose clients answer `ok` to everything, recording the tokens it was asked for. */
function recordingOpener(tokens: (string | undefined)[]): ClientOpener {
  return async (_target, token) => {
    tokens.push(token);
    const client: ContractClient = { call: async () => ok, list: async () => ok, close: async () => {} };
    return client;
  };
}

describe('a fixture’s client opener', () => {
  it('opens every client without headers, and replies still reach the listener', async () => {
    const tokens: (string | undefined)[] = [];
    const heard: string[] = [];
    const target = {
      endpoint: { transport: 'http' as const, url: 'http://127.0.0.1:9/mcp' },
      era: '2026-07-28' as const,
      listener: (tool: string) => void heard.push(tool),
    };
    const client = await connectClient(recordingOpener(tokens), target, 'tok');
    expect(await client.call('get_note', { id: 'n1' })).toBe(ok);
    expect([tokens, heard]).toEqual([['tok'], ['get_note']]);
  });

  it('is bypassed for requests that set headers: the raw client sends them', async () => {
    const tokens: (string | undefined)[] = [];
    const target = {
      endpoint: { transport: 'http' as const, url: 'http://127.0.0.1:9/mcp' },
      era: '2026-07-28' as const,
    };
    const client = await connectClient(recordingOpener(tokens), target, undefined, {
      origin: 'https://evil.example',
    });
    const reply = await client.list();
    await client.close();
    expect(tokens).toEqual([]);
    expect(reply.failure).toBeDefined();
  });

  it('serves planning and every case of a check', async () => {
    const tokens: (string | undefined)[] = [];
    const counting: ClientOpener = (target, token) => {
      tokens.push(token);
      return openClient(target, token);
    };
    const outcomes = await runContractCheck({ ...notesFixture(), client: counting }, 'I3.foreign-ids', {
      tools: ['get_note'],
    });
    expect(outcomes.map((o) => o.status)).toEqual(['passed']);
    // tools/list twice while planning (full and limited grant), then the case's own client
    expect(tokens.length).toBeGreaterThanOrEqual(3);
    expect(tokens.every((t) => typeof t === 'string' && t.length > 0)).toBe(true);
  });
});
