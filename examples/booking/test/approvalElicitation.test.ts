/**
 * How a client learns that a person must approve (I9), per kind of client:
 * 2026-07-28 clients that declare URL elicitation get an input-required
 * result naming the approval page, with the pending action's id as request
 * state; the retry answers where the action stands. Over stdio a 2025-11-25
 * client that declared URL elicitation at initialize gets that era's
 * elicitation request. A 2025 client over stateless HTTP, or one without
 * URL elicitation, gets the preview naming the page.
 */
import { PassThrough } from 'node:stream';
import { serveStdio } from '@gatehousejs/core/stdio';
import { RawHttpClient } from '@gatehousejs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { describe, expect, it } from 'vitest';
import { createBookingApp } from '../src/app.js';
import { serveHttp } from '../src/httpServer.js';
import { approveAs } from './fixtures/approvals.js';
import { ERAS, type Era, type Structured } from './fixtures/clients.js';
import { type TestApp, testApp } from './fixtures/testApp.js';

const DELETE = { booking_id: 'bk_alan_check' };
const URL_ELICITATION = { elicitation: { url: {} } };

/** What the client's elicitation handler saw, and how the "person" answered. */
interface Asked {
  readonly mode: unknown;
  readonly url: unknown;
  readonly message: unknown;
}

/**
 * An official v2 client declaring URL elicitation. Its handler plays the
 * user: it opens the page (the person approves there when `decide` says so)
 * and answers accept, or declines.
 */
function elicitingClient(t: TestApp, era: Era, decide: 'approve' | 'decline', asked: Asked[]): Client {
  const client = new Client(
    { name: 'approval-test', version: '1.0.0' },
    { capabilities: URL_ELICITATION, versionNegotiation: { mode: era.mode } },
  );
  client.setRequestHandler('elicitation/create', async (request) => {
    const params = request.params as Record<string, unknown>;
    asked.push({ mode: params.mode, url: params.url, message: params.message });
    if (decide === 'decline') return { action: 'decline' };
    const id = new URL(String(params.url)).pathname.split('/').pop() ?? '';
    expect((await approveAs(t, decodeURIComponent(id))).outcome).toBe('executed');
    return { action: 'accept' };
  });
  return client;
}

const bookingsLeft = (t: TestApp) => t.count('bookings', "id = 'bk_alan_check'");

async function httpClient(t: TestApp, client: Client) {
  const served = await t.serve();
  const token = await t.mint();
  await client.connect(
    new StreamableHTTPClientTransport(served.mcpUrl, {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

async function stdioClient(t: TestApp, client: Client) {
  const toServer = new PassThrough();
  const toClient = new PassThrough();
  const handle = serveStdio(t.app.mcp, {
    token: await t.mint(),
    transport: new StdioServerTransport(toServer, toClient),
  });
  await client.connect(new StdioServerTransport(toClient, toServer));
  return { client, close: () => handle.close() };
}

const modern = ERAS.find((e) => e.label === '2026-07-28')!;
const legacy = ERAS.find((e) => e.label === '2025-11-25')!;

describe('approval by a person through URL elicitation (2026-07-28 over HTTP)', () => {
  it('asks the user to open the approval page; after the person approves, the call returns the result once', async () => {
    await using t = await testApp();
    const asked: Asked[] = [];
    const client = await httpClient(t, elicitingClient(t, modern, 'approve', asked));
    const result = await client.callTool({ name: 'delete_booking', arguments: DELETE });
    const s = result.structuredContent as Structured;
    expect(s).toMatchObject({
      status: 'ok',
      replayed: true,
      result: { deleted: { customer: { id: 'cu_alan' } } },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]!.mode).toBe('url');
    expect(String(asked[0]!.url)).toMatch(new RegExp(`^${t.app.publicUrl.get()}/approvals/pa_`));
    expect(await bookingsLeft(t)).toBe(0);
    expect(await t.count('gatehouse_audit', "action = 'delete_booking'")).toBe(1);
    await client.close();
  });

  it('gives the model approval_pending with the URL when the user declines; nothing is deleted', async () => {
    await using t = await testApp();
    const asked: Asked[] = [];
    const client = await httpClient(t, elicitingClient(t, modern, 'decline', asked));
    const s = (await client.callTool({ name: 'delete_booking', arguments: DELETE }))
      .structuredContent as Structured;
    expect(s.error?.code).toBe('approval_pending');
    expect(s.error?.details.approval_url).toBe(asked[0]!.url);
    expect(await bookingsLeft(t)).toBe(1);
    await client.close();
  });

  it('answers a retry on another process from the store: the stored outcome, never a second run', async () => {
    await using t = await testApp();
    const served = await t.serve();
    const token = await t.mint();
    const raw = (url: URL) =>
      new RawHttpClient({
        url,
        era: '2026-07-28',
        capabilities: URL_ELICITATION,
        headers: { authorization: `Bearer ${token}` },
      });
    await using first = raw(served.mcpUrl);
    const round1 = (await first.callTool('delete_booking', DELETE)).result as Record<string, unknown>;
    expect(round1.resultType).toBe('input_required');
    const state = round1.requestState as string;
    expect(state).toMatch(/^pa_/);
    expect(await approveAs(t, state)).toMatchObject({ outcome: 'executed' });

    // another process on the same database: it knows the action only from the store
    const other = await createBookingApp({ file: t.file, seed: false, logger: t.app.logger });
    const otherServing = await serveHttp(other, { port: 0 });
    try {
      await using second = raw(otherServing.mcpUrl);
      const retry = {
        name: 'delete_booking',
        arguments: DELETE,
        requestState: state,
        inputResponses: { approval: { action: 'accept' } },
      };
      const reply = await second.request('tools/call', retry);
      const s = (reply.result as { structuredContent: Structured }).structuredContent;
      expect(s).toMatchObject({
        status: 'ok',
        replayed: true,
        result: { deleted: { customer: { id: 'cu_alan' } } },
      });
      // a forged or foreign state learns nothing
      const forged = await second.request('tools/call', {
        ...retry,
        requestState: 'pa_00000000000000000000000000',
      });
      expect((forged.result as { structuredContent: Structured }).structuredContent.error?.code).toBe(
        'confirm_not_found',
      );
      const otherArgs = await second.request('tools/call', {
        ...retry,
        arguments: { booking_id: 'bk_ada_boiler' },
      });
      expect((otherArgs.result as { structuredContent: Structured }).structuredContent.error?.code).toBe(
        'confirm_not_found',
      );
    } finally {
      await otherServing.close();
      await other.close();
    }
    expect(await bookingsLeft(t)).toBe(0);
    expect(await t.count('gatehouse_audit', "action = 'delete_booking'")).toBe(1);
  });

  it('gives a client without URL elicitation the preview naming the page', async () => {
    await using t = await testApp();
    const client = new Client(
      { name: 'plain', version: '1.0.0' },
      { versionNegotiation: { mode: modern.mode } },
    );
    await httpClient(t, client);
    const s = (await client.callTool({ name: 'delete_booking', arguments: DELETE }))
      .structuredContent as Structured;
    expect(s).toMatchObject({ status: 'PREVIEW', approval: 'person' });
    expect(String(s.approval_url)).toContain('/approvals/pa_');
    expect(await bookingsLeft(t)).toBe(1);
    await client.close();
  });
});

describe('approval by a person on the 2025-11-25 era', () => {
  it('over HTTP (stateless, no server-to-client channel): the preview names the page, even when elicitation is declared', async () => {
    await using t = await testApp();
    const asked: Asked[] = [];
    const client = await httpClient(t, elicitingClient(t, legacy, 'approve', asked));
    const s = (await client.callTool({ name: 'delete_booking', arguments: DELETE }))
      .structuredContent as Structured;
    expect(s).toMatchObject({ status: 'PREVIEW', approval: 'person' });
    expect(asked).toEqual([]);
    expect(await bookingsLeft(t)).toBe(1);
    await client.close();
  });

  it('over stdio with URL elicitation declared at initialize: the era’s URL elicitation request, then the result', async () => {
    await using t = await testApp();
    const asked: Asked[] = [];
    const { client, close } = await stdioClient(t, elicitingClient(t, legacy, 'approve', asked));
    try {
      const s = (await client.callTool({ name: 'delete_booking', arguments: DELETE }))
        .structuredContent as Structured;
      expect(asked).toHaveLength(1);
      expect(asked[0]!.mode).toBe('url');
      expect(s).toMatchObject({
        status: 'ok',
        replayed: true,
        result: { deleted: { customer: { id: 'cu_alan' } } },
      });
      expect(await bookingsLeft(t)).toBe(0);
    } finally {
      await client.close();
      await close();
    }
  });
});
