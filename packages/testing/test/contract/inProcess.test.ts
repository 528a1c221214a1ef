/**
 * The kit's speed-ups keep their meaning: a stdio endpoint served in this
 * process over a pair of streams speaks like a process (token, gate
 * statuses, close), and smoke coverage runs each check exactly once.
 */
import { PassThrough } from 'node:stream';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { smokeCases } from '../../src/contract/run.js';
import {
  CONTRACT_CHECKS,
  casesOf,
  type HostEndpoint,
  openClient,
  planContract,
  RawStdioClient,
  type StdioConnection,
} from '../../src/index.js';
import { notesFixture } from './host/fixture.js';

/** A gate-like v1 server for `token` over two streams; `closed` counts closed connections. */
async function connectGate(token: string | undefined, closed: string[]): Promise<StdioConnection> {
  const input = new PassThrough();
  const output = new PassThrough();
  const server = new Server({ name: 'gate', version: '1.0.0' }, { capabilities: { tools: {} } });
  const gate = () => {
    if (token !== 'good') throw new McpError(-32041, 'The token is not valid.', { status: 401 });
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    gate();
    return { tools: [{ name: 'ping', inputSchema: { type: 'object' } }] };
  });
  server.setRequestHandler(CallToolRequestSchema, async () => {
    gate();
    return {
      content: [{ type: 'text', text: '{"status":"ok","result":{}}' }],
      structuredContent: { status: 'ok', result: {} },
    };
  });
  await server.connect(new StdioServerTransport(input, output));
  return {
    input,
    output,
    async close() {
      await server.close();
      closed.push(token ?? '(none)');
    },
  };
}

describe('openClient over an in-process stdio endpoint', () => {
  it('connects one server per credential, reads gate errors as statuses and closes the connection', async () => {
    const closed: string[] = [];
    const seen: string[] = [];
    // #region endpoint
    const endpoint: HostEndpoint = { transport: 'stdio', connect: (token) => connectGate(token, closed) };
    // #endregion endpoint
    const target = { endpoint, era: '2025-11-25' as const, listener: (tool: string) => void seen.push(tool) };
    const good = await openClient(target, 'good');
    const none = await openClient(target, undefined);
    expect((await good.list()).status).toBe(200);
    expect((await good.call('ping', {})).result?.structuredContent).toEqual({ status: 'ok', result: {} });
    const refused = await none.call('ping', {});
    expect([refused.status, refused.rpcError?.code]).toEqual([401, -32041]);
    expect(seen).toEqual(['ping']);
    await Promise.all([good.close(), none.close()]);
    expect(closed.sort()).toEqual(['(none)', 'good']);
  });

  it('fails a pending request once the connection has closed', async () => {
    const closed: string[] = [];
    const client = RawStdioClient.connect(await connectGate('good', closed), { era: '2025-11-25' });
    await client.close();
    expect(client.exit).toEqual({ code: 0, signal: null });
    await expect(client.callTool('ping', {})).rejects.toThrow(/ended/);
  });
});

describe('smokeCases', () => {
  it('keeps one case per check, on the first tool it runs for', async () => {
    const plan = await planContract(notesFixture());
    const all = casesOf(plan, CONTRACT_CHECKS);
    const smoke = smokeCases(all);
    const checks = new Set(all.map((c) => c.check));
    expect(smoke).toHaveLength(checks.size);
    for (const check of checks) {
      const first = all.find((c) => c.check === check && c.selection === 'run');
      expect(smoke.filter((c) => c.check === check)).toEqual([first ?? all.find((c) => c.check === check)]);
    }
    expect(smoke.length).toBeLessThan(all.length);
  });
});
