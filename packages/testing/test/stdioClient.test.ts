import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MCP_META_KEYS, type RawReply, RawStdioClient, toolResultText } from '../src/index.js';

const fixture = fileURLToPath(new URL('./fixtures/stdioServer.mjs', import.meta.url));

function echoed(reply: RawReply): Record<string, unknown> {
  return JSON.parse(toolResultText(reply.result));
}

describe('RawStdioClient', () => {
  it('lists and calls a tool in the 2026-07-28 era with the _meta envelope on each request', async () => {
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2026-07-28',
    });

    const discovery = await client.discover();
    const list = await client.listTools();
    const call = await client.callTool('echo', { a: 'x' }, { id: 'stdio-1' });

    expect(discovery.result?.supportedVersions).toContain('2026-07-28');
    expect(list.result?.resultType).toBe('complete');
    expect(call.response?.id).toBe('stdio-1');
    expect(echoed(call)).toMatchObject({ arguments: { a: 'x' }, id: 'stdio-1' });
    expect(echoed(call).envelope).toMatchObject({ [MCP_META_KEYS.protocolVersion]: '2026-07-28' });
    expect(client.messages.filter((message) => 'initialize' === message.method)).toEqual([]);
    expect(client.stderr).toContain('bare stdio server ready');
  });

  it('runs the 2025-11-25 handshake once before the first request', async () => {
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2025-11-25',
    });

    const call = await client.callTool('echo', { a: 'y' });
    const list = await client.listTools();
    const handshake = await client.initialize();

    expect(handshake.id).toBe(1);
    expect(handshake.result?.protocolVersion).toBe('2025-11-25');
    expect(echoed(call)).toMatchObject({ arguments: { a: 'y' }, id: 2, envelope: null });
    expect(list.result?.resultType).toBeUndefined();
    expect(client.messages.map((message) => message.id)).toEqual([1, 2, 3]);
  });

  it('correlates responses that arrive out of order by id', async () => {
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2026-07-28',
    });

    const ids = ['a', 'b', 'c', 1, 2, 3];
    const calls = ids.map((id, index) => client.callTool('echo', { delayMs: 600 - index * 100 }, { id }));
    const replies = await Promise.all(calls);

    expect(replies.map((reply) => reply.response?.id)).toEqual(ids);
    expect(replies.map((reply) => echoed(reply).id)).toEqual(ids);
    expect(client.messages.map((message) => message.id)).toEqual([...ids].reverse());
  });

  it('gives each of two requests sent with the same id one response', async () => {
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2026-07-28',
    });

    const replies = await Promise.all([
      client.callTool('echo', { n: 1, delayMs: 100 }, { id: 'same' }),
      client.callTool('echo', { n: 2 }, { id: 'same' }),
    ]);

    const numbers = replies.map((reply) => (echoed(reply).arguments as { n: number }).n);
    expect(numbers.sort()).toEqual([1, 2]);
  });

  it('writes a malformed line as is without waiting and keeps non-JSON stdout apart', async () => {
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2026-07-28',
      env: { BARE_STDOUT_NOISE: '1' },
    });

    const malformed = await client.send(undefined, { rawLine: '{"jsonrpc":"2.0","id":9,' });
    const after = await client.callTool('echo', {});

    expect(malformed.response).toBeUndefined();
    expect(after.result).toBeDefined();
    expect(client.stdout).toContain('not json-rpc\n');
    expect(client.messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
  });

  it('rejects a request the server never answers once the timeout passes', async () => {
    const silent = ['-e', 'setInterval(() => {}, 1000)'];
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: silent,
      era: '2026-07-28',
      timeoutMs: 200,
    });

    await expect(client.listTools({ id: 'never' })).rejects.toThrow(
      /no response with id "never" within 200 ms/,
    );
  });

  it('rejects pending requests with the stderr tail when the process ends', async () => {
    const dying = ['-e', 'process.stderr.write("fatal: no database"); setTimeout(() => process.exit(3), 50)'];
    await using client = await RawStdioClient.spawn({
      command: process.execPath,
      args: dying,
      era: '2026-07-28',
    });

    await expect(client.listTools()).rejects.toThrow(/code 3.*fatal: no database/);
    expect(client.exit).toEqual({ code: 3, signal: null });
  });

  it('stops the process on close', async () => {
    const client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [fixture],
      era: '2026-07-28',
    });

    await client.listTools();
    await client.close();

    expect(client.exit).toBeDefined();
    await expect(client.listTools()).rejects.toThrow(/ended/);
  });

  it('rejects when the command cannot be started', async () => {
    await expect(RawStdioClient.spawn({ command: '/nonexistent/server', era: '2026-07-28' })).rejects.toThrow(
      /ENOENT/,
    );
  });
});
