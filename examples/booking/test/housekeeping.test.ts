/**
 * Housekeeping runs off the request path: a timer purges expired guard-store
 * rows and REST sessions in small batches, logs a failure by its type only,
 * and stops with the app.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startHousekeeping } from '../src/housekeeping.js';
import { testApp } from './fixtures/testApp.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function capturedLogger() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: pino({ level: 'info' }, sink) };
}

describe('startHousekeeping', () => {
  it('purges expired sessions and expired replay rows on its timer, keeping live ones', async () => {
    await using t = await testApp({ housekeepingIntervalMs: 20 });
    await t.exec(
      `INSERT INTO sessions (token_hash, person_id, created_at, expires_at)
       VALUES ('expired-1', 'p_dan', 0, 1), ('expired-2', 'p_vera', 0, 2), ('live', 'p_dan', 0, ?)`,
      Date.now() + 30 * 86_400_000,
    );
    const token = await t.mint();
    const decision = await t.app.credentials.authenticate({ token });
    if (!decision.ok) throw new Error('mint failed');
    await t.app.mcp.callTool(decision.connection, 'create_booking', {
      customer_id: 'cu_alan',
      starts_at: {
        local: `${new Date(Date.now() + 20 * 86_400_000).toISOString().slice(0, 10)}T08:00`,
        zone: 'Europe/Berlin',
      },
      duration_minutes: 30,
      price: { minor_units: 4500, currency: 'EUR' },
    });
    expect(await t.count('gatehouse_replay')).toBe(1);
    t.advance(7 * 86_400_000);
    for (let i = 0; i < 50 && (await t.count('sessions')) > 1; i++) await sleep(20);
    expect(await t.rows('SELECT token_hash FROM sessions')).toEqual([{ token_hash: 'live' }]);
    for (let i = 0; i < 50 && (await t.count('gatehouse_replay')) > 0; i++) await sleep(20);
    expect(await t.count('gatehouse_replay')).toBe(0);
  });

  it('logs a failed round by error type only, never its message, and runs again on the next tick', async () => {
    const { lines, logger } = capturedLogger();
    let rounds = 0;
    const housekeeping = startHousekeeping({
      intervalMs: 10,
      logger,
      round: async () => {
        rounds += 1;
        throw new TypeError('connect postgres://booking:hunter2@db.internal/booking failed');
      },
    });
    for (let i = 0; i < 50 && rounds < 2; i++) await sleep(10);
    await housekeeping.stop();
    const stopped = rounds;
    await sleep(40);
    expect(stopped).toBeGreaterThanOrEqual(2);
    expect(rounds).toBe(stopped);
    expect(lines.join('\n')).not.toContain('hunter2');
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ event: 'housekeeping', error_type: 'TypeError' }),
    );
  });

  it('refuses an interval that is not a positive number of milliseconds', () => {
    const { logger } = capturedLogger();
    for (const intervalMs of [0, -1, Number.NaN]) {
      expect(() => startHousekeeping({ intervalMs, logger, round: async () => undefined })).toThrow(
        'intervalMs',
      );
    }
  });
});
