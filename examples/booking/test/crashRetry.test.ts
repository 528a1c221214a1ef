/**
 * A process killed (SIGKILL) a few milliseconds into a `create_booking` and
 * a `confirm_action` leaves claims nobody renews: its replay claims and the
 * pending action it claimed. After a restart, a client that sends the same
 * calls again (following the retry hints) gets the result or exactly one
 * execution within seconds: the dead claims lapse within their short lease,
 * never after the minutes a long lease or the action's expiry would take.
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HttpReply } from '@gatehousejs/testing';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { countIn, mintWithEveryRight, type RunningBooking, spawnBooking } from './fixtures/spawnBooking.js';
import { berlin } from './fixtures/testApp.js';
import { retryDelayMs, startsAtMs } from './replicas/scenarios.js';

const here = dirname(fileURLToPath(import.meta.url));
/** The shortest lease the server accepts on SQLite (a renewal interval plus the 5 s lock wait). */
const LEASE_MS = 7_000;
const ENV = { BOOKING_REPLAY_LEASE_MS: String(LEASE_MS) };
let dir = '';
let script = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-crash-'));
  script = join(dir, 'main.cjs');
  bundleChild(join(here, '../src/main.ts'), script);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function kill(server: RunningBooking): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

/** Sends a call again, as a client does, until its answer is final; every answer with the time it came. */
async function settle(send: () => Promise<HttpReply>, since: number) {
  const answers: { reply: HttpReply; atMs: number }[] = [];
  for (let attempt = 0; attempt < 60; attempt++) {
    const reply = await send();
    answers.push({ reply, atMs: Date.now() - since });
    const delay = retryDelayMs(reply);
    if (delay === undefined) break;
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, 1_000)));
  }
  return answers;
}

describe('a retry after the server was killed mid-call', () => {
  it.each([3, 15, 40])(
    'gets the result or one execution within seconds when the kill came %i ms into a create and a confirm',
    async (delayMs) => {
      const file = join(dir, `crash-${delayMs}.db`);
      const first = await spawnBooking(script, file, ENV);
      const token = await mintWithEveryRight(file);
      const client = rawClient(first.url, token);
      const day = 50 + delayMs;
      const bookingArgs = (time: string) => ({
        customer_id: 'cu_ada',
        starts_at: berlin(day, time),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      });
      const setup = structured(await client.callTool('create_booking', bookingArgs('09:00')));
      const bookingId = (setup.result as { id: string }).id;
      const preview = structured(await client.callTool('notify_customer', { booking_id: bookingId }));
      const confirm = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
      const create = bookingArgs('11:00');

      const inFlight = [
        client.callTool('create_booking', create).catch(() => undefined),
        client.callTool('confirm_action', confirm).catch(() => undefined),
      ];
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await kill(first);
      const killedAt = Date.now();
      await Promise.all(inFlight);

      const second = await spawnBooking(script, file, ENV);
      try {
        const again = rawClient(second.url, token);
        const [created, confirmed] = await Promise.all([
          settle(() => again.callTool('create_booking', create), killedAt),
          settle(() => again.callTool('confirm_action', confirm), killedAt),
        ]);
        for (const answers of [created, confirmed]) {
          const last = answers.at(-1)!;
          expect(codeOf(last.reply), JSON.stringify(structured(last.reply))).toBeUndefined();
          expect(structured(last.reply).status).toBe('ok');
          // a dead claim lapses within its lease (and the restart): never still_running after it
          expect(last.atMs).toBeLessThan(LEASE_MS + 5_000);
          const late = answers.filter(
            (a) => codeOf(a.reply) === 'still_running' && a.atMs > LEASE_MS + 1_000,
          );
          expect(late).toEqual([]);
          expect(answers.map((a) => codeOf(a.reply))).not.toContain('confirm_locked');
        }
        expect(
          countIn(
            file,
            "SELECT count(*) AS n FROM bookings WHERE customer_id = 'cu_ada' AND starts_at = ?",
            startsAtMs(day, '11:00'),
          ),
        ).toBe(1);
        expect(
          countIn(file, 'SELECT count(*) AS n FROM outbound_messages WHERE booking_id = ?', bookingId),
        ).toBe(1);
        console.info(
          `killed ${delayMs} ms in: create settled after ${created.at(-1)!.atMs} ms (${created.length} sends), confirm after ${confirmed.at(-1)!.atMs} ms (${confirmed.length} sends)`,
        );
      } finally {
        await kill(second);
      }
    },
    60_000,
  );

  it.each([
    ['without a lease (written by a release that never came)', 0],
    ['whose lease still runs for 3 s', 3_000],
  ])(
    'takes over a confirmation’s claim left by a dead process %s, and sends once',
    async (_what, leftMs) => {
      const file = join(dir, `claimed-${leftMs}.db`);
      const first = await spawnBooking(script, file, ENV);
      const token = await mintWithEveryRight(file);
      const client = rawClient(first.url, token);
      const created = structured(
        await client.callTool('create_booking', {
          customer_id: 'cu_grace',
          starts_at: berlin(90 + leftMs / 1_000, '10:00'),
          duration_minutes: 30,
          price: { minor_units: 4500, currency: 'EUR' },
        }),
      );
      const bookingId = (created.result as { id: string }).id;
      const preview = structured(await client.callTool('notify_customer', { booking_id: bookingId }));
      await kill(first);
      // what a process killed after claiming the action leaves in the file
      const db = new Database(file);
      const now = Date.now();
      db.prepare(
        "UPDATE gatehouse_pending_actions SET status = 'claimed', claim_fence = 'dead', claim_expires_at = ? WHERE status = 'pending'",
      ).run(leftMs === 0 ? null : now + leftMs);
      db.close();
      const second = await spawnBooking(script, file, ENV);
      try {
        const confirm = { confirm_token: preview.confirm_token, confirm_summary: preview.confirm_summary };
        const answers = await settle(
          () => rawClient(second.url, token).callTool('confirm_action', confirm),
          now,
        );
        const last = answers.at(-1)!;
        expect(structured(last.reply).status, JSON.stringify(structured(last.reply))).toBe('ok');
        expect(last.atMs).toBeLessThan(leftMs + 5_000);
        if (leftMs > 0) expect(codeOf(answers[0]!.reply)).toBe('confirm_locked');
        expect(
          countIn(file, 'SELECT count(*) AS n FROM outbound_messages WHERE booking_id = ?', bookingId),
        ).toBe(1);
      } finally {
        await kill(second);
      }
    },
    30_000,
  );
});
