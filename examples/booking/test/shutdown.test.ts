/**
 * Graceful shutdown of the real server process (`src/main.ts`, bundled): a
 * burst of MCP calls is on the wire when SIGTERM arrives; every one gets its
 * complete answer, readiness fails while draining, the process exits 0, and
 * every write it acknowledged is in the database file afterwards. Clients on
 * kept-alive connections that keep writing through the shutdown see no
 * reset: each call is acknowledged and stored, or answered 503 and not run.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { type RunningBooking, spawnBooking } from './fixtures/spawnBooking.js';
import { berlin } from './fixtures/testApp.js';

const here = dirname(fileURLToPath(import.meta.url));
let dir = '';
let script = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-shutdown-'));
  script = join(dir, 'main.cjs');
  bundleChild(join(here, '../src/main.ts'), script);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts `main` on `file` (PORT=0) and reads the MCP URL and demo token from its banner. The drain
 * delay covers connections the busy process has not accepted or read yet when the signal comes:
 * once it stops accepting, those would be reset.
 */
const start = (file: string, env: Record<string, string> = {}): Promise<RunningBooking> =>
  spawnBooking(script, file, { SHUTDOWN_DRAIN_DELAY_MS: '2000', SHUTDOWN_DEADLINE_MS: '10000', ...env });

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'shutdown-test', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Answer {
  readonly status: number;
  /** The JSON-RPC message of the answer (plain JSON or the SSE `data:` line). */
  readonly message: { result?: { structuredContent?: Record<string, unknown> }; error?: unknown };
}

interface Sent {
  /** Resolves once the whole request is written to the socket. */
  readonly written: Promise<void>;
  readonly answer: Promise<Answer>;
}

const callHeaders = (token: string, name: string) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': name,
  authorization: `Bearer ${token}`,
});

const callBody = (id: number, name: string, args: object) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: META },
  });

/** The JSON-RPC message of an answer's `text`: plain JSON or the SSE `data:` line. */
const messageIn = (headers: IncomingHttpHeaders, text: string): Answer['message'] =>
  JSON.parse(
    String(headers['content-type']).includes('text/event-stream')
      ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null')
      : text,
  );

/** Reads a response to its end: its status, headers and JSON-RPC message. */
function readAnswer(res: IncomingMessage): Promise<Answer & { readonly headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
    });
    res.once('end', () => {
      try {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, message: messageIn(res.headers, text) });
      } catch (error) {
        reject(error);
      }
    });
    res.once('error', reject);
  });
}

/** One raw 2026-07-28 tools/call on its own connection, over node:http so the test knows when it is sent. */
function callTool(url: URL, token: string, id: number, name: string, args: object): Sent {
  const body = callBody(id, name, args);
  const req = httpRequest(url, { method: 'POST', agent: false, headers: callHeaders(token, name) });
  const written = new Promise<void>((resolve) => req.once('finish', () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once('response', (res) => {
      readAnswer(res).then(({ status, message }) => resolve({ status, message }), reject);
    });
    req.once('error', reject);
  });
  req.end(body);
  // awaited later, all together; until then a failure must not count as unhandled
  answer.catch(() => undefined);
  return { written, answer };
}

const readiness = async (url: URL): Promise<[number, string]> => {
  const response = await fetch(new URL('/readyz', url));
  return [response.status, await response.text()];
};

/** Rows the way another process sees them: its own read-only handle on the file. */
function bookingIds(file: string): Set<string> {
  const db = new Database(file, { readonly: true });
  try {
    return new Set((db.prepare('SELECT id FROM bookings').all() as { id: string }[]).map((r) => r.id));
  } finally {
    db.close();
  }
}

/** The prices (in minor units, from `from` up) of the bookings in `file`, read by its own handle. */
function pricesStored(file: string, from: number): Set<number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT price_minor AS p FROM bookings WHERE price_minor >= ?').all(from);
    return new Set((rows as { p: number }[]).map((r) => r.p));
  } finally {
    db.close();
  }
}

/** One whole answer a kept-alive client got, for the booking priced `price`. */
interface Exchange extends Answer {
  readonly price: number;
  readonly headers: IncomingHttpHeaders;
  /** `performance.now()` when the call was sent. */
  readonly sentAt: number;
}

/** The first price of the kept-alive clients' bookings; each call's price is its key in the table. */
const FIRST_PRICE = 20_000;
/**
 * The kept-alive test's drain delay and grace: served, then refused, then
 * the listener closes. The grace is long enough that each of the 16 clients,
 * whose writes queue for one SQLite write lock (slow on a loaded machine),
 * sends at least one request inside it.
 */
const DRAIN_MS = 300;
const GRACE_MS = 2_500;

/** One `create_booking` through `agent`, priced `price` minor units (and starting on its own day). */
/**
 * The `n`th booking's own half hour: 24 a day from 06:00 (clear of the
 * night a clock change skips), from 100 days ahead, so a fast machine's
 * thousands of writes stay inside the product's 365-day horizon.
 */
function slotOf(n: number): { local: string; zone: string } {
  const minutes = 6 * 60 + (n % 24) * 30;
  const time = `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  return berlin(100 + Math.floor(n / 24), time);
}

function createBooking(server: RunningBooking, agent: Agent, price: number): Promise<Exchange> {
  const sentAt = performance.now();
  const args = {
    customer_id: 'cu_grace',
    starts_at: slotOf(price - FIRST_PRICE),
    duration_minutes: 30,
    price: { minor_units: price, currency: 'EUR' },
  };
  const headers = callHeaders(server.token, 'create_booking');
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url, { method: 'POST', agent, headers }, (res) => {
      readAnswer(res).then((answer) => resolve({ ...answer, price, sentAt }), reject);
    });
    req.once('error', reject);
    req.end(callBody(price - FIRST_PRICE + 1, 'create_booking', args));
  });
}

/**
 * A client on one kept-alive connection (maxSockets 1) creating bookings back
 * to back until `done()`; `answers` and `errors` fill as it goes, `ended`
 * resolves when it stopped (at `done()` or its first error).
 */
function keepAliveClient(server: RunningBooking, done: () => boolean, nextPrice: () => number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const answers: Exchange[] = [];
  const errors: string[] = [];
  const ended = (async () => {
    while (!done()) {
      const price = nextPrice();
      try {
        answers.push(await createBooking(server, agent, price));
      } catch (error) {
        errors.push(`${price}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
        break;
      }
    }
    agent.destroy();
  })();
  return { answers, errors, ended };
}

/** Runs `body`; a failure carries the end of the server's output, to tell a crash from a refusal. */
async function withOutput(server: RunningBooking, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (error) {
    const tail = server.output().slice(-4_000);
    throw new Error(`${(error as Error).message}\n--- server output ---\n${tail}`, { cause: error });
  }
}

describe('the booking server process on SIGTERM', () => {
  it('answers every call sent before the signal, fails readiness while draining, exits 0, and keeps every acknowledged write', async () => {
    const file = join(dir, 'booking.db');
    const server = await start(file);
    await withOutput(server, () => burstThenSigterm(server, file));
  });

  it('answers 16 kept-alive clients writing through the shutdown without a reset, and stores exactly the bookings it acknowledged', async () => {
    const file = join(dir, 'keepalive.db');
    const server = await start(file, {
      SHUTDOWN_DRAIN_DELAY_MS: String(DRAIN_MS),
      SHUTDOWN_GRACE_MS: String(GRACE_MS),
      SHUTDOWN_DEADLINE_MS: '5000',
      BOOKING_RATE_LIMITS: JSON.stringify({ write: { capacity: 100_000, refillPerSecond: 1_000 } }),
    });
    await withOutput(server, () => keepAliveWritesThroughSigterm(server, file));
  });
});

async function keepAliveWritesThroughSigterm(server: RunningBooking, file: string): Promise<void> {
  let stopAt = Number.POSITIVE_INFINITY;
  let price = FIRST_PRICE;
  const clients = Array.from({ length: 16 }, () =>
    keepAliveClient(
      server,
      () => performance.now() >= stopAt,
      () => price++,
    ),
  );
  for (let i = 0; i < 500 && !clients.every((c) => c.answers.length >= 2); i++) {
    await new Promise((r) => setTimeout(r, 10));
  }
  expect(clients.map((c) => c.answers.length >= 2)).toEqual(Array(16).fill(true));
  const signalled = performance.now();
  // the listener closes when the grace ends, counted from when the process takes the signal, and a
  // connection it has not taken in by then is reset: the clients stop 200 ms before
  stopAt = signalled + DRAIN_MS + GRACE_MS - 200;
  server.child.kill('SIGTERM');
  await Promise.all(clients.map((c) => c.ended));

  expect(clients.flatMap((c) => c.errors)).toEqual([]);
  expect(await server.exited).toBe(0);
  const answers = clients.flatMap((c) => c.answers);
  const acknowledged = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  for (const answer of acknowledged) {
    expect(answer.message.error).toBeUndefined();
    expect(answer.message.result?.structuredContent?.status).toBe('ok');
  }
  for (const answer of refused) {
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(answer.headers.connection).toBe('close');
    expect(answer.message.error).toMatchObject({ code: -32053, data: { status: 503 } });
  }
  // served while draining, then refused during the grace, on every client
  expect(acknowledged.some((a) => a.sentAt > signalled)).toBe(true);
  for (const { answers: own } of clients) expect(own.some((a) => a.status === 503)).toBe(true);

  const ids = acknowledged.map(
    (a) => (a.message.result?.structuredContent?.result as { id?: string } | undefined)?.id ?? '',
  );
  const stored = bookingIds(file);
  for (const id of ids) expect(stored.has(id)).toBe(true);
  const prices = pricesStored(file, FIRST_PRICE);
  const byValue = (a: number, b: number) => a - b;
  expect([...prices].sort(byValue)).toEqual(acknowledged.map((a) => a.price).sort(byValue));
  for (const answer of refused) expect(prices.has(answer.price)).toBe(false);
}

async function burstThenSigterm(server: RunningBooking, file: string): Promise<void> {
  expect(await readiness(server.url)).toEqual([200, 'ready']);

  const sent = Array.from({ length: 50 }, (_, i) =>
    i % 2 === 0
      ? callTool(server.url, server.token, i + 1, 'create_booking', {
          customer_id: 'cu_grace',
          starts_at: berlin(60 + i, '09:00'),
          duration_minutes: 30,
          price: { minor_units: 5000 + i, currency: 'EUR' },
        })
      : callTool(server.url, server.token, i + 1, 'find_customers', { query: 'a' }),
  );
  await Promise.all(sent.map((s) => s.written));
  server.child.kill('SIGTERM');

  let draining: [number, string] = [0, ''];
  for (let i = 0; i < 50 && draining[0] !== 503; i++) draining = await readiness(server.url);
  expect(draining).toEqual([503, 'draining']);

  const answers = await Promise.all(sent.map((s) => s.answer));
  expect(answers.map((a) => a.status)).toEqual(Array(50).fill(200));
  for (const answer of answers) {
    expect(answer.message.error).toBeUndefined();
    expect(answer.message.result?.structuredContent?.status).toBe('ok');
  }
  expect(await server.exited).toBe(0);

  const acknowledged = answers
    .filter((_, i) => i % 2 === 0)
    .map((a) => (a.message.result?.structuredContent?.result as { id?: string } | undefined)?.id ?? '');
  expect(new Set(acknowledged).size).toBe(25);
  const stored = bookingIds(file);
  for (const id of acknowledged) expect(stored.has(id)).toBe(true);
}
