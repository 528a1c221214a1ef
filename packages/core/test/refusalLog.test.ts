import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createHttpHandler } from '../src/http.js';
import { type RefusalEvent, refusalLog } from '../src/serve/refusalLog.js';
import { serveStdio } from '../src/stdio.js';
import { NOOP_SPAN, type Telemetry } from '../src/telemetry.js';
import { notesServer, TOKEN_T1 } from './fixtures/notesServer.js';
import { recordingLogger } from './recording.js';

const MINUTE = 60_000;

const event = (clientAddress: string | undefined, status: 401 | 403 | 503 = 401): RefusalEvent => ({
  refusal: { status, reason: status === 401 ? 'A bearer token is required.' : 'Refused.' },
  step: status === 403 ? 'origin' : status === 503 ? 'guard' : 'bearer',
  transport: 'http',
  clientAddress,
});

/** A refusal log on a clock the test moves by hand. */
function pinned(options: { perWindow?: number; maxKeys?: number } = {}) {
  const logger = recordingLogger();
  const clock = { now: 1_000_000 };
  const log = refusalLog(logger, { ...options, now: () => clock.now });
  return { logger, clock, log };
}

describe('refusalLog', () => {
  it('writes the first refusal per client address and reason, with reason, transport, step and address', () => {
    const { logger, log } = pinned();
    log.refused(event('10.0.0.1'));
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'admission refusal',
        record: {
          event: 'admission_refusal',
          transport: 'http',
          status: 401,
          step: 'bearer',
          reason: 'A bearer token is required.',
          client_address: '10.0.0.1',
        },
      },
    ]);
  });

  it('suppresses repeats inside the window and says how many once the window rolls over', () => {
    const { logger, clock, log } = pinned();
    for (let i = 0; i < 5; i++) log.refused(event('10.0.0.1'));
    expect(logger.lines).toHaveLength(1);
    clock.now += MINUTE;
    log.refused(event('10.0.0.1'));
    expect(logger.lines.map((l) => l.message)).toEqual([
      'admission refusal',
      '4 admission refusals suppressed',
      'admission refusal',
    ]);
    expect(logger.lines[1]?.record).toMatchObject({
      event: 'admission_refusal_suppressed',
      suppressed: 4,
      window_ms: MINUTE,
      status: 401,
      step: 'bearer',
      client_address: '10.0.0.1',
    });
  });

  it('reports a window’s suppressed lines when another client’s refusal comes after the window', () => {
    const { logger, clock, log } = pinned();
    log.refused(event('10.0.0.1'));
    log.refused(event('10.0.0.1'));
    clock.now += MINUTE;
    log.refused(event('10.0.0.2'));
    expect(logger.lines.map((l) => l.message)).toEqual([
      'admission refusal',
      '1 admission refusals suppressed',
      'admission refusal',
    ]);
  });

  it('keeps client addresses and reasons apart, and writes 403 at warn, never at error', () => {
    const { logger, log } = pinned();
    log.refused(event('10.0.0.1'));
    log.refused(event('10.0.0.2'));
    log.refused(event('10.0.0.1', 403));
    log.refused(event('10.0.0.1', 503));
    log.refused(event('10.0.0.1', 503));
    expect(logger.lines.map((l) => [l.level, (l.record as { status: number }).status])).toEqual([
      ['info', 401],
      ['info', 401],
      ['warn', 403],
      ['info', 503],
    ]);
  });

  it('writes up to perWindow lines per window', () => {
    const { logger, log } = pinned({ perWindow: 3 });
    for (let i = 0; i < 10; i++) log.refused(event('10.0.0.1'));
    expect(logger.lines).toHaveLength(3);
  });

  it('tracks at most maxKeys pairs: new clients beyond the cap share one entry, and expired pairs are swept', () => {
    const { logger, clock, log } = pinned({ maxKeys: 3 });
    for (let i = 0; i < 50; i++) log.refused(event(`10.0.0.${i}`));
    // three tracked clients, then the first overflowing one; 46 more are counted, not written
    expect(logger.lines).toHaveLength(4);
    clock.now += MINUTE;
    log.refused(event('10.0.1.1'));
    const summary = logger.lines.find((l) => l.message === '46 admission refusals suppressed');
    expect(summary).toMatchObject({ level: 'warn', record: { client_address: '*', suppressed: 46 } });
    // the sweep freed the expired pairs: a new client is tracked on its own again
    expect(logger.lines.at(-1)?.record).toMatchObject({ client_address: '10.0.1.1' });
    log.refused(event('10.0.1.2'));
    expect(logger.lines.at(-1)?.record).toMatchObject({ client_address: '10.0.1.2' });
  });

  it('leaves the refusal alone when the logger throws', () => {
    const log = refusalLog({
      info() {
        throw new Error('disk full');
      },
      warn() {},
      error() {},
    });
    expect(() => log.refused(event('10.0.0.1'))).not.toThrow();
  });
});

describe('protocol mistakes of clients', () => {
  const mistake = (clientAddress: string): RefusalEvent => ({
    refusal: { status: 400, reason: 'Parse error: the body is not JSON.' },
    step: 'request',
    transport: 'http',
    clientAddress,
  });

  it('are logged at info as protocol errors, rate-limited per address and reason like refusals', () => {
    const { logger, clock, log } = pinned();
    for (let i = 0; i < 4; i++) log.refused(mistake('10.0.0.9'));
    clock.now += MINUTE;
    log.refused(mistake('10.0.0.9'));
    expect(logger.lines.map((l) => [l.level, l.message])).toEqual([
      ['info', 'protocol error'],
      ['info', '3 protocol errors suppressed'],
      ['info', 'protocol error'],
    ]);
    expect(logger.lines[1]!.record).toMatchObject({
      event: 'protocol_error_suppressed',
      suppressed: 3,
      status: 400,
    });
  });

  it('are never logged at error level and counted through telemetry, every one, over HTTP and stdio', async () => {
    const counted: string[] = [];
    const telemetry: Telemetry = {
      request: () => NOOP_SPAN,
      refused: ({ status, step, transport }) => counted.push(`${transport} ${status} ${step}`),
    };
    const app = notesServer({ telemetry });
    const logger = recordingLogger();
    const handler = createHttpHandler(app.server, { logger });
    const url = 'http://127.0.0.1/mcp';
    const post = (body: string) =>
      handler.fetch(
        new Request(url, {
          method: 'POST',
          headers: {
            host: '127.0.0.1',
            authorization: `Bearer ${TOKEN_T1}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body,
        }),
      );
    for (let i = 0; i < 3; i++) expect((await post('{not json')).status).toBe(400);
    expect(counted).toEqual(['http 400 request', 'http 400 request', 'http 400 request']);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    expect(logger.lines.filter((l) => l.message === 'protocol error')).toHaveLength(1);

    const input = new PassThrough();
    const output = new PassThrough();
    const stdioLogger = recordingLogger();
    const handle = serveStdio(app.server, { token: TOKEN_T1, input, output, logger: stdioLogger });
    const answered = new Promise<string>((resolve) => output.once('data', (chunk) => resolve(String(chunk))));
    input.write('this is not json\n');
    expect(await answered).toContain('-32700');
    await handle.close();
    expect(counted.at(-1)).toBe('stdio 400 request');
    expect(stdioLogger.lines).toEqual([
      expect.objectContaining({ level: 'info', message: 'protocol error' }),
    ]);
  });
});
