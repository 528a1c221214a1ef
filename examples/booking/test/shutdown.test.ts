/**
 * Graceful shutdown of the real server process (`src/main.ts`, bundled): a
 * burst of MCP calls is on the wire when SIGTERM arrives; every one gets its
 * complete answer, readiness fails while draining, the process exits 0, and
 * every write it acknowledged is in the database file afterwards.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
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
const start = (file: string): Promise<RunningBooking> =>
  spawnBooking(script, file, { SHUTDOWN_DRAIN_DELAY_MS: '2000', SHUTDOWN_DEADLINE_MS: '10000' });

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

/** One raw 2026-07-28 tools/call on its own connection, over node:http so the test knows when it is sent. */
function callTool(url: URL, token: string, id: number, name: string, args: object): Sent {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args, _meta: META },
  });
  const req = httpRequest(url, {
    method: 'POST',
    agent: false,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
      authorization: `Bearer ${token}`,
    },
  });
  const written = new Promise<void>((resolve) => req.once('finish', () => resolve()));
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.once('end', () => {
        const data = String(res.headers['content-type']).includes('text/event-stream')
          ? (/^data: (.*)$/m.exec(text)?.[1] ?? 'null')
          : text;
        try {
          resolve({ status: res.statusCode ?? 0, message: JSON.parse(data) as Answer['message'] });
        } catch (error) {
          reject(error);
        }
      });
      res.once('error', reject);
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
});

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
