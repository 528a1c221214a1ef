/**
 * Logs an operator can live with: a burst of a client's protocol mistakes
 * (the SDK's own 4xx answers included) and an outage of the store behind
 * admission each write one line per window and then one line with the
 * suppressed count, at info or warn; error is for faults of the server.
 * Driven over real HTTP with the server's clock moved by hand.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import { type Authenticate, createGatehouse, errorLog } from '../src/index.js';
import { listen } from '../src/node.js';
import { SECRET_ERROR } from './fixtures/notesServer.js';
import { connection, RIGHTS } from './fixtures.js';
import { recordingLogger } from './recording.js';

const MINUTE = 60_000;
const TOKEN = 'ghmcp_logs_0123456789';
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A one-tool server on a clock the test moves, whose credential store can go down or hang. */
function loggedServer() {
  const clock = { now: Date.parse('2026-09-01T08:00:00Z') };
  const store = { mode: 'up' as 'up' | 'down' | 'hang' };
  const logger = recordingLogger();
  const gh = createGatehouse({ rights: RIGHTS, services: () => ({}) });
  const ping = gh.defineTool({
    name: 'ping',
    description: 'Answers pong.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: { outputSchema: { type: 'object' }, present: () => ({ pong: true }) },
    run: async () => ({}),
  });
  const authenticate: Authenticate<(typeof RIGHTS)[number]> = async ({ token }) => {
    if (store.mode === 'down') throw new Error(SECRET_ERROR);
    if (store.mode === 'hang') return new Promise(() => {});
    if (token !== TOKEN) return { ok: false, status: 401, reason: 'Unknown token.' };
    return { ok: true, connection: connection() };
  };
  const server = gh.createServer(
    withGuards({
      name: 'logs',
      version: '1.0.0',
      tools: [ping],
      authenticate,
      logger,
      clock: () => new Date(clock.now),
      onError: errorLog(logger, { now: () => clock.now }),
    }),
  );
  return { server, logger, clock, store };
}

/** Sends `count` requests, `parallel` at a time; resolves with their statuses. */
async function burst(count: number, send: () => Promise<Response>, parallel = 20): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += parallel) {
    const answers = await Promise.all(
      Array.from({ length: Math.min(parallel, count - sent) }, async () => {
        const response = await send();
        await response.arrayBuffer();
        return response.status;
      }),
    );
    statuses.push(...answers);
  }
  return statuses;
}

const mismatched = (url: URL) =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      // the body names tools/list: headers and body disagree (-32020, HTTP 400)
      'mcp-method': 'tools/call',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: ENVELOPE } }),
  });

describe('errorLog', () => {
  it('writes a fault at error with its type and code, never its message', () => {
    const logger = recordingLogger();
    const onerror = errorLog(logger, { transport: 'http', now: () => 0 });
    onerror(Object.assign(new Error(SECRET_ERROR), { code: 'ECONNREFUSED' }), { kind: 'fault' });
    expect(logger.lines).toEqual([
      {
        level: 'error',
        message: 'transport error',
        record: {
          event: 'transport_error',
          transport: 'http',
          error_type: 'Error',
          error_code: 'ECONNREFUSED',
        },
      },
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
  });

  it('writes a tool call’s failure once per call by its correlation id, and the transport a report names', () => {
    const logger = recordingLogger();
    const onError = errorLog(logger, { now: () => 0 });
    for (const id of ['01A', '01B'])
      onError(new TypeError(SECRET_ERROR), { kind: 'fault', correlationId: id });
    onError(new Error(SECRET_ERROR), { kind: 'fault', transport: 'stdio' });
    expect(logger.lines.map((l) => [l.level, l.record])).toEqual([
      ['error', { event: 'internal_error', correlation_id: '01A', error_type: 'TypeError' }],
      ['error', { event: 'internal_error', correlation_id: '01B', error_type: 'TypeError' }],
      ['error', { event: 'transport_error', transport: 'stdio', error_type: 'Error' }],
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('hunter2');
  });

  it('writes an outage at warn and counts the repeats of a window in one line when it rolls over', () => {
    const logger = recordingLogger();
    const clock = { now: 0 };
    const onerror = errorLog(logger, { now: () => clock.now });
    for (let i = 0; i < 50; i++) onerror(new Error(SECRET_ERROR), { kind: 'outage' });
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([['warn', 'store outage']]);
    clock.now += MINUTE;
    onerror(new Error(SECRET_ERROR), { kind: 'outage' });
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([
      ['warn', 'store outage'],
      ['warn', '49 store outage lines suppressed'],
      ['warn', 'store outage'],
    ]);
    expect(logger.lines[1]?.record).toEqual({
      event: 'store_outage_suppressed',
      suppressed: 49,
      window_ms: MINUTE,
      error_type: 'Error',
    });
  });

  it('keeps error types apart, takes a callback without a report as a fault, and survives a throwing logger', () => {
    const logger = recordingLogger();
    const onerror = errorLog(logger, { now: () => 0, perWindow: 2 }) as (error: Error) => void;
    for (let i = 0; i < 3; i++) onerror(new TypeError('x'));
    onerror(new RangeError('y'));
    expect(logger.lines.map((l) => (l.record as { error_type: string }).error_type)).toEqual([
      'TypeError',
      'TypeError',
      'RangeError',
    ]);
    const throwing = errorLog({
      info: () => {},
      warn: () => {},
      error: () => {
        throw new Error('disk full');
      },
    });
    expect(() => throwing(new Error('x'), { kind: 'fault' })).not.toThrow();
  });
});

describe('the logs of a burst over Streamable HTTP', () => {
  it('writes one info line for 200 header mismatches, reports none as an error, and counts them when the window rolls', async () => {
    const app = loggedServer();
    await using served = await listen(app.server);
    const statuses = await burst(200, () => mismatched(served.url));
    expect(new Set(statuses)).toEqual(new Set([400]));
    expect(app.logger.lines).toEqual([
      {
        level: 'info',
        message: 'protocol error',
        record: expect.objectContaining({
          event: 'protocol_error',
          transport: 'http',
          status: 400,
          step: 'request',
          client_address: '127.0.0.1',
        }),
      },
    ]);
    app.clock.now += MINUTE;
    expect((await mismatched(served.url)).status).toBe(400);
    expect(app.logger.lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'protocol error'],
      ['info', '199 protocol errors suppressed'],
      ['info', 'protocol error'],
    ]);
    expect(app.logger.lines[1]?.record).toMatchObject({
      event: 'protocol_error_suppressed',
      suppressed: 199,
    });
  });

  it('writes one warn line each from the refusal log and the error log for 200 answers of 503 while the store is down', async () => {
    const app = loggedServer();
    await using served = await listen(app.server);
    app.store.mode = 'down';
    const statuses = await burst(200, () => mismatched(served.url));
    expect(new Set(statuses)).toEqual(new Set([503]));
    const lines = () => app.logger.lines.map((l) => [l.level, l.message]);
    // the error log hears of the outage first, then the refusal log writes the 503
    expect(lines()).toEqual([
      ['warn', 'store outage'],
      ['warn', 'admission refusal'],
    ]);
    expect(app.logger.lines[0]?.record).toEqual({
      event: 'store_outage',
      transport: 'http',
      error_type: 'Error',
    });
    expect(app.logger.lines[1]?.record).toMatchObject({ status: 503, step: 'unavailable' });
    app.clock.now += MINUTE;
    expect((await mismatched(served.url)).status).toBe(503);
    expect(lines()).toEqual([
      ['warn', 'store outage'],
      ['warn', 'admission refusal'],
      ['warn', '199 store outage lines suppressed'],
      ['warn', 'store outage'],
      ['warn', '199 admission refusals suppressed'],
      ['warn', 'admission refusal'],
    ]);
    expect(JSON.stringify(app.logger.lines)).not.toContain('hunter2');
  });

  it('writes an admission timeout at warn, once a window, never at error', async () => {
    const app = loggedServer();
    await using served = await listen(app.server, { unavailable: { timeoutMs: 20 } });
    app.store.mode = 'hang';
    expect(await burst(10, () => mismatched(served.url), 10)).toEqual(Array(10).fill(503));
    expect(app.logger.lines.map((l) => [l.level, l.record])).toEqual([
      ['warn', { event: 'store_outage', transport: 'http', error_type: 'AdmissionTimeoutError' }],
      ['warn', expect.objectContaining({ event: 'admission_refusal', step: 'unavailable' })],
    ]);
  });

  it('still reports a fault of the server at error', async () => {
    const app = loggedServer();
    await using served = await listen(app.server, {
      tenantFrom: () => {
        throw new Error(SECRET_ERROR);
      },
    });
    expect((await mismatched(served.url)).status).toBe(500);
    expect(app.logger.lines).toEqual([
      {
        level: 'error',
        message: 'transport error',
        record: { event: 'transport_error', transport: 'http', error_type: 'Error' },
      },
    ]);
  });
});
