/**
 * The minimal notes host started twice, as twins (core's native 2026-07-28
 * path on for one, off for the other, so the SDK answers everything there),
 * behind a tee: a node:http server on 127.0.0.1, port 0, that sends each
 * request it receives to both twins, one request at a time, records the
 * compared pair of answers and returns the native twin's. Every hook of the
 * contract fixture acts on both twins' stores alike (a token minted on each,
 * the SDK twin's learned by the twins); what the checks observe (rows,
 * messages, audit rows, log lines) is read from the native twin, and when the
 * host closes the two twins' stores are compared.
 */
import { createServer } from 'node:http';
import type { GatehouseServer } from '@gatehousejs/core';
import { toNodeListener } from '@gatehousejs/core/node';
import {
  nativeTwinsOf,
  type TwinExchange,
  type TwinRequest,
} from '../../../../core/test/fixtures/nativeTwin.js';
import { canonicalSnapshot } from '../../../src/contract/observe.js';
import type { Right } from '../host/domain.js';
import type { Flaws } from '../host/flaws.js';
import { type NotesHost, type ServeNotes, startNotesHost } from '../host/notesHost.js';

/** One request the suite sent through the tee and the twins' compared answers. */
export interface TeeExchange {
  /** The request's method, `Mcp-Method` and `Mcp-Name`, for reading a difference. */
  readonly label: string;
  readonly exchange: TwinExchange;
}

/** What the tees of a run saw, over every host the suite started. */
export interface TeeLog {
  readonly exchanges: TeeExchange[];
  /** Where the twins' stores differed when a host closed. */
  readonly stores: string[];
  /** How many hosts closed with their twins' stores compared. */
  closed: number;
}

/** The notes host behind the tee: its endpoint is the tee's. */
export interface TeeHost extends NotesHost {
  readonly endpoint: { readonly transport: 'http'; readonly url: URL };
}

/** Framing of the tee's own connection: each twin's request carries the body anew. */
const CONNECTION_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

async function twinRequestOf(request: Request): Promise<TwinRequest> {
  const headers = Object.fromEntries([...request.headers].filter(([name]) => !CONNECTION_HEADERS.has(name)));
  const { method } = request;
  return method === 'POST' ? { method, headers, rawBody: await request.text() } : { method, headers };
}

const labelOf = (request: TwinRequest) =>
  [request.method, request.headers['mcp-method'], request.headers['mcp-name']].filter(Boolean).join(' ');

/** Serves `send` on 127.0.0.1 (port 0), one request after another; answers with the exchange it returns. */
async function serveTee(send: (request: TwinRequest) => Promise<TwinExchange>) {
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = (request: TwinRequest) => {
    const answered = turn.then(() => send(request));
    turn = answered.catch(() => undefined);
    return answered;
  };
  const http = createServer(
    toNodeListener(async (request) => {
      const exchange = await inTurn(await twinRequestOf(request));
      const body = exchange.text === '' ? null : exchange.text;
      return new Response(body, { status: exchange.status, headers: exchange.headers });
    }),
  );
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** The differences between the twins' stores: rows, messages sent, audit rows (their ids and times aside). */
async function storeDifferences(native: NotesHost, sdk: NotesHost): Promise<string[]> {
  const views: [string, (host: NotesHost) => Promise<string>][] = [
    ['rows', async (host) => canonicalSnapshot(await host.snapshot())],
    ['messages sent', async (host) => String(await host.sentMessages())],
    [
      'audit rows',
      async (host) =>
        ((await host.auditRows?.()) ?? []).map((row) => `${row.channel} ${row.action}`).join(', '),
    ],
  ];
  const differences: string[] = [];
  for (const [name, view] of views) {
    const [seen, sdkSeen] = [await view(native), await view(sdk)];
    if (seen !== sdkSeen) differences.push(`${name}: native ${seen}, sdk ${sdkSeen}`);
  }
  return differences;
}

/**
 * Starts the notes host's twins behind a tee that records into `log`.
 * `sdkFlaws` break the SDK twin only, for a test that the tee sees it.
 */
export async function startTeeHost(log: TeeLog, sdkFlaws: Flaws = {}): Promise<TeeHost> {
  const servers: GatehouseServer<Right>[] = [];
  // the twins are served by the tee below, not one by one
  const captured: ServeNotes = async (server) => {
    servers.push(server);
    return { url: new URL('http://127.0.0.1/unserved'), close: async () => {} };
  };
  const native = await startNotesHost({}, captured);
  const sdk = await startNotesHost(sdkFlaws, captured);
  const [nativeServer, sdkServer] = servers;
  if (!nativeServer || !sdkServer) throw new Error('the notes host served no server');
  const twins = nativeTwinsOf({ native: nativeServer, sdk: sdkServer });
  const tee = await serveTee(async (request) => {
    const exchange = await twins.send(request);
    log.exchanges.push({ label: labelOf(request), exchange });
    return exchange;
  });
  const sdkTokens = new Map<string, string>();
  const both = <A extends unknown[]>(act: (host: NotesHost, ...args: A) => Promise<void>) => {
    return async (...args: A) => {
      await act(native, ...args);
      await act(sdk, ...args);
    };
  };

  // Read from the native twin alone: the observations (rows, messages, audit
  // rows, log lines, versions) and the foreign credentials, random text that
  // both twins refuse alike and that changes no state.
  return {
    ...native,
    endpoint: { transport: 'http', url: tee.url },
    async mint(actor, grant) {
      const token = await native.mint(actor, grant);
      const sdkToken = await sdk.mint(actor, grant);
      sdkTokens.set(token, sdkToken);
      twins.learn(token, sdkToken);
      return token;
    },
    async revoke(token) {
      await native.revoke?.(token);
      await sdk.revoke?.(sdkTokens.get(token) ?? token);
    },
    removeRole: both((host, actor) => host.removeRole(actor)),
    deactivate: both((host, actor) => host.deactivate(actor)),
    setGlobalSwitch: both((host, on: boolean) => host.setGlobalSwitch(on)),
    setTenantAccess: both((host, tenantId: string, on: boolean) => host.setTenantAccess(tenantId, on)),
    changeBehindCaller: both((host, tool: string) => host.changeBehindCaller?.(tool) ?? Promise.resolve()),
    seedCanaries: both((host, text: string) => host.seedCanaries?.(text) ?? Promise.resolve()),
    seedDecoys: both((host, decoy: string) => host.seedDecoys?.(decoy) ?? Promise.resolve()),
    advanceClock: both((host, ms: number) => host.advanceClock?.(ms) ?? Promise.resolve()),
    async close() {
      try {
        await tee.close();
        log.stores.push(...(await storeDifferences(native, sdk)));
        log.closed += 1;
      } finally {
        twins.restore();
        await Promise.all([native.close(), sdk.close()]);
      }
    },
  };
}
