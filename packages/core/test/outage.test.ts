/**
 * When the stores admission reads are down (the credential store behind the
 * authenticator, the switch store behind the global kill switch), every
 * transport answers 503 / -32053 with a retry hint naming no cause, writes
 * nothing, logs once per window, and serves again as soon as the store
 * answers, with no restart.
 */
import { PassThrough } from 'node:stream';
import { createCredentials, createSwitches, type PeopleSource } from '@gatehousejs/access';
import { RawStdioClient } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
} from '../src/index.js';
import { listen } from '../src/node.js';
import { StdioLineTransport } from '../src/sdkV1.js';
import { serveStdio } from '../src/stdio.js';
import { LEAKS, SECRET_ERROR } from './fixtures/notesServer.js';
import { createRequest } from './fixtures/rawRequest.js';
import { httpHost } from './fixtures/v1Carriers.js';
import { notesApp, v1Host } from './fixtures/v1Notes.js';
import { type Note, NoteService, RIGHTS, type Right } from './fixtures.js';
import { recordingLogger } from './recording.js';

type Mode = 'up' | 'down' | 'hang';

/** `store` with every method rejecting (`down`) or never answering (`hang`) while `mode.value` says so. */
function failing<T extends object>(store: T): { readonly store: T; readonly mode: { value: Mode } } {
  const mode = { value: 'up' as Mode };
  const proxy = new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (mode.value === 'down') return Promise.reject(new Error(SECRET_ERROR));
        if (mode.value === 'hang') return new Promise(() => {});
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, mode };
}

/** A notes server behind the access package's real credentials and kill switch, on stores that can fail. */
async function outageApp() {
  const credentialStore = failing(new MemoryCredentialStore());
  const switchStore = failing(new MemorySwitchStore());
  const audit = new MemoryAuditStore();
  const replay = new MemoryReplayStore();
  const rows: Note[] = [];
  const people: PeopleSource<Right> = { current: async () => ({ active: true, rights: [...RIGHTS] }) };
  const credentials = createCredentials({ store: credentialStore.store, audit, people, rights: RIGHTS });
  const switches = createSwitches({ store: switchStore.store, audit });
  /** What the server's onError heard. */
  const reported: Error[] = [];
  const gh = createGatehouse({ rights: RIGHTS, services: (c) => ({ notes: new NoteService(rows, c) }) });
  const addNote = gh.defineTool({
    name: 'add_note',
    description: 'Creates a note.',
    effect: 'write',
    requires: ['notes.write'],
    input: z.object({ text: z.string().min(1).max(200) }),
    presenter: {
      outputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      present: (n: Note) => ({ id: n.id }),
    },
    run: ({ input, services }) => services.notes.create(input.text),
  });
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools: [addNote],
      authenticate: credentials.authenticate,
      switches: switches,
      audit,
      replay: { store: replay },
      unitOfWork: separateCommits(),
      onError: (error) => reported.push(error),
    }),
  );
  const { token } = await credentials.mint({
    tenantIds: ['t1'],
    creatorId: 'p1',
    rights: [...RIGHTS],
    clientLabel: 'outage test',
  });
  const written = () => ({ notes: rows.length, audit: audit.rows.length, replay: replay.size });
  return {
    server,
    token,
    rows,
    written,
    reported,
    stores: { credentials: credentialStore.mode, switches: switchStore.mode },
  };
}

type OutageApp = Awaited<ReturnType<typeof outageApp>>;

/** An answer reduced to what the assertions need, on any transport. */
interface Answer {
  readonly status?: number;
  readonly retryAfter?: string | null;
  readonly error?: { code: number; message: string; data?: unknown } | undefined;
  readonly isError?: boolean;
  readonly raw: string;
}

async function fromHttp(response: Response): Promise<Answer> {
  const raw = await response.text();
  const data = response.headers.get('content-type')?.includes('text/event-stream')
    ? (/^data: (.*)$/m.exec(raw)?.[1] ?? 'null')
    : raw;
  const message = JSON.parse(data) as { error?: Answer['error']; result?: { isError?: boolean } };
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    error: message.error,
    isError: message.result?.isError ?? false,
    raw,
  };
}

/**
 * Takes the stores down one at a time (credential store, switch store), then
 * brings them back: each refused request is a 503 (or -32053) with the
 * retry hint and no cause, writes nothing, and the refusal log holds one
 * `unavailable` line; once the stores answer, the same call writes its note.
 */
async function provesOutage(
  app: OutageApp,
  send: (text: string) => Promise<Answer>,
  logger: ReturnType<typeof recordingLogger>,
  expected: { readonly http: boolean; readonly retryAfter: number },
): Promise<void> {
  const before = app.written();
  for (const store of ['credentials', 'switches', 'credentials'] as const) {
    app.stores[store].value = 'down';
    const answer = await send(`refused while the ${store} store is down`);
    app.stores[store].value = 'up';
    if (expected.http) {
      expect(answer.status).toBe(503);
      expect(answer.retryAfter).toBe(String(expected.retryAfter));
    }
    expect(answer.error).toEqual({
      code: -32053,
      message: 'Temporarily unavailable; retry shortly.',
      data: { status: 503, retry_after_seconds: expected.retryAfter },
    });
    for (const leak of LEAKS) expect(answer.raw).not.toContain(leak);
  }
  expect(app.written()).toEqual(before);
  expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR, SECRET_ERROR, SECRET_ERROR]);

  const served = await send('served again');
  expect(served.error).toBeUndefined();
  expect(served.isError).toBe(false);
  expect(app.rows.map((r) => r.text)).toEqual(['served again']);
  expect(app.written()).toEqual({ notes: 1, audit: before.audit + 1, replay: before.replay + 1 });

  const unavailable = logger.lines.filter((l) => (l.record as { step?: string }).step === 'unavailable');
  expect(unavailable).toEqual([
    {
      level: 'warn',
      message: 'admission refusal',
      record: expect.objectContaining({ event: 'admission_refusal', status: 503, step: 'unavailable' }),
    },
  ]);
  for (const line of logger.lines) for (const leak of LEAKS) expect(JSON.stringify(line)).not.toContain(leak);
}

const v1Call = (text: string) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'add_note', arguments: { text } },
  });

const fromStdio = (reply: { error?: Answer['error']; result?: Record<string, unknown> }): Answer => ({
  error: reply.error,
  isError: reply.result?.isError === true,
  raw: JSON.stringify(reply),
});

describe('admission while a store is down', () => {
  it('answers 503 with Retry-After over Streamable HTTP (listen), writes nothing, and serves again', async () => {
    const app = await outageApp();
    const logger = recordingLogger();
    await using served = await listen(app.server, { logger });
    const send = async (text: string) =>
      fromHttp(await fetch(createRequest(served.url, { authorization: `Bearer ${app.token}` }, text)));
    await provesOutage(app, send, logger, { http: true, retryAfter: 5 });
  });

  it('answers 503 with the configured Retry-After when a store does not answer within timeoutMs', async () => {
    const app = await outageApp();
    await using served = await listen(app.server, {
      unavailable: { retryAfterSeconds: 3, timeoutMs: 100 },
    });
    app.stores.credentials.value = 'hang';
    const send = async (text: string) =>
      fromHttp(await fetch(createRequest(served.url, { authorization: `Bearer ${app.token}` }, text)));
    const answer = await send('too slow');
    expect([answer.status, answer.retryAfter, answer.error?.code]).toEqual([503, '3', -32053]);
    expect(app.reported.map((e) => e.name)).toEqual(['AdmissionTimeoutError']);
    app.stores.credentials.value = 'up';
    expect((await send('in time')).status).toBe(200);
    expect(app.rows.map((r) => r.text)).toEqual(['in time']);
  });

  it('answers 503 with Retry-After through the SDK v1 admission middleware, writes nothing, and serves again', async () => {
    const app = await outageApp();
    const logger = recordingLogger();
    const host = { ...notesApp(), server: app.server };
    await using served = await httpHost(host, 'Server', 'stateless', { logger });
    const send = async (text: string) =>
      fromHttp(
        await fetch(served.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${app.token}`,
          },
          body: v1Call(text),
        }),
      );
    await provesOutage(app, send, logger, { http: true, retryAfter: 5 });
  });

  it('answers the JSON-RPC error -32053 over stdio, writes nothing, and serves again', async () => {
    const app = await outageApp();
    const logger = recordingLogger();
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(app.server, { token: app.token, logger, input, output });
    await using client = RawStdioClient.connect(
      { input, output, close: () => handle.close() },
      { era: '2026-07-28' },
    );
    const send = async (text: string) => fromStdio(await client.callTool('add_note', { text }));
    await provesOutage(app, send, logger, { http: false, retryAfter: 5 });
  });

  it('answers the JSON-RPC error -32053 through the SDK v1 mount on stdio, writes nothing, and serves again', async () => {
    const app = await outageApp();
    const logger = recordingLogger();
    const host = { ...notesApp(), server: app.server };
    const server = v1Host('Server', host, { credential: { token: app.token }, logger });
    const input = new PassThrough();
    const output = new PassThrough();
    await server.connect(new StdioLineTransport(input, output));
    await using client = RawStdioClient.connect(
      { input, output, close: () => server.close() },
      { era: '2025-11-25' },
    );
    const send = async (text: string) => fromStdio(await client.callTool('add_note', { text }));
    await provesOutage(app, send, logger, { http: false, retryAfter: 5 });
  });
});
