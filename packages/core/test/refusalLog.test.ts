import { describe, expect, it } from 'vitest';
import { type RefusalEvent, refusalLog } from '../src/serve/refusalLog.js';
import { recordingLogger } from './recording.js';

const MINUTE = 60_000;

const event = (clientAddress: string | undefined, status: 401 | 403 | 503 = 401): RefusalEvent => ({
  refusal: { status, reason: status === 401 ? 'A bearer token is required.' : 'Refused.' },
  step: status === 403 ? 'origin' : status === 503 ? 'gate' : 'bearer',
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
        message: 'gate refusal',
        record: {
          event: 'gate_refusal',
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
      'gate refusal',
      '4 gate refusals suppressed',
      'gate refusal',
    ]);
    expect(logger.lines[1]?.record).toMatchObject({
      event: 'gate_refusal_suppressed',
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
      'gate refusal',
      '1 gate refusals suppressed',
      'gate refusal',
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
    const summary = logger.lines.find((l) => l.message === '46 gate refusals suppressed');
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
