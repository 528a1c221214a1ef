/**
 * Restart safety: the real entry point (`src/main.ts`, bundled) runs as a
 * separate process on a database file; it is killed and started again, and
 * what Gatehouse keeps in that file (pending actions, replay records,
 * switches, credentials) is still in force afterwards.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPLAY_NOTE } from '@gatehousejs/core';
import { RawStdioClient } from '@gatehousejs/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild, CHILD_ENV } from '../../../test/childBundle.js';
import { runCli } from '../src/cli/run.js';
import { RIGHTS } from '../src/domain/model.js';
import { rawClient, structured } from './fixtures/raw.js';
import { countIn } from './fixtures/spawnBooking.js';
import { berlin } from './fixtures/testApp.js';

const here = dirname(fileURLToPath(import.meta.url));
const ALL_RIGHTS = RIGHTS.join(',');
let dir = '';
let script = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'booking-restart-'));
  script = join(dir, 'main.cjs');
  bundleChild(join(here, '../src/main.ts'), script);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Running {
  readonly url: URL;
  readonly token: string;
  readonly credentialId: string;
  stop(signal: NodeJS.Signals): Promise<void>;
}

/** Starts `main` on `file` (PORT=0; DATABASE_URL cleared, so it is SQLite) and reads the MCP URL and demo token from its banner. */
function start(file: string): Promise<Running> {
  const child: ChildProcess = spawn(process.execPath, [script], {
    env: { ...process.env, ...CHILD_ENV, DATABASE_URL: '', BOOKING_DB: file, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let out = '';
  return new Promise((resolve, reject) => {
    child.once('close', (code) => reject(new Error(`the server exited (${code}) before its banner: ${out}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (!out.includes('Press Ctrl+C')) return;
      const url = /MCP URL\s+(\S+)/.exec(out)?.[1] ?? '';
      const token = /Demo token\s+(\S+)/.exec(out)?.[1] ?? '';
      const credentialId = /id (cred_\w+)/.exec(out)?.[1] ?? '';
      resolve({
        url: new URL(url),
        token,
        credentialId,
        stop: async (signal) => {
          child.kill(signal);
          await exited;
        },
      });
    });
  });
}

const cli = async (file: string, ...argv: string[]) => {
  let out = '';
  const io = {
    out: (text: string) => {
      out += text;
    },
    err: () => undefined,
  };
  const code = await runCli(argv, { file, io, logger: pino({ level: 'silent' }) });
  return code === 0 ? out : `exit ${code}`;
};

/** Mints an MCP token in ws_acme with the booking CLI and reads the token and its id from the output. */
async function mint(file: string, person: string, rights: string) {
  const out = await cli(
    file,
    'token',
    'create',
    '--workspace',
    'ws_acme',
    '--person',
    person,
    '--rights',
    rights,
  );
  return { token: /token {4}(\S+)/.exec(out)?.[1] ?? '', credentialId: /(cred_\w+)/.exec(out)?.[1] ?? '' };
}

describe('the booking server process', () => {
  it('keeps pending actions, replay records, switches and tokens across a kill and a restart', async () => {
    const file = join(dir, 'booking.db');
    const first = await start(file);
    // The demo token is replaced at every start, so the restarts use a minted one.
    const { token, credentialId } = await mint(file, 'p_olivia', ALL_RIGHTS);
    const before = rawClient(first.url, token);
    const args = {
      customer_id: 'cu_grace',
      starts_at: berlin(40, '16:00'),
      duration_minutes: 60,
      price: { minor_units: 7000, currency: 'EUR' },
    };
    const created = structured(await before.callTool('create_booking', args, { id: 1 }));
    const bookingId = (created.result as { id: string }).id;
    const preview = structured(
      await before.callTool('notify_customer', { booking_id: bookingId }, { id: 2 }),
    );
    expect(preview.status).toBe('PREVIEW');
    await first.stop('SIGKILL');

    const second = await start(file);
    expect((await rawClient(second.url, first.token).listTools()).status).toBe(401);
    const after = rawClient(second.url, token);
    const resent = structured(await after.callTool('create_booking', args, { id: 3 }));
    expect(resent).toEqual({ ...created, replayed: true, replay_note: REPLAY_NOTE });
    expect(countIn(file, "SELECT count(*) AS n FROM bookings WHERE customer_id = 'cu_grace'")).toBe(2);
    const confirmed = await after.callTool('confirm_action', {
      confirm_token: preview.confirm_token,
      confirm_summary: preview.confirm_summary,
    });
    expect(structured(confirmed).status).toBe('ok');
    expect(countIn(file, 'SELECT count(*) AS n FROM outbound_messages WHERE booking_id = ?', bookingId)).toBe(
      1,
    );
    expect(await cli(file, 'switch', 'global', 'on')).toContain('ON');
    expect((await after.listTools()).status).toBe(503);
    await second.stop('SIGTERM');

    const third = await start(file);
    const again = rawClient(third.url, token);
    expect((await again.listTools()).status).toBe(503);
    expect(await cli(file, 'switch', 'global', 'off')).toContain('OFF');
    expect((await again.listTools()).status).toBe(200);
    expect(await cli(file, 'token', 'revoke', credentialId)).toContain('Revoked');
    expect((await again.listTools()).status).toBe(401);
    expect((await rawClient(third.url, third.token).listTools()).status).toBe(200);
    await third.stop('SIGTERM');
  });

  it('serves one stdio connection with the token in BOOKING_TOKEN, and refuses to start without one', async () => {
    const file = join(dir, 'stdio.db');
    await cli(file, 'seed');
    const { token } = await mint(file, 'p_vera', 'bookings.read');
    const env = { ...CHILD_ENV, DATABASE_URL: '', BOOKING_DB: file, LOG_LEVEL: 'warn' };
    const client = await RawStdioClient.spawn({
      command: process.execPath,
      args: [script, '--stdio'],
      era: '2026-07-28',
      env: { ...env, BOOKING_TOKEN: token },
    });
    const reply = await client.callTool('find_bookings', {});
    expect(reply.result?.structuredContent).toMatchObject({ result: { bookings: [{}, {}, {}] } });
    const tools = (((await client.listTools()).result?.tools ?? []) as { name: string }[]).map((t) => t.name);
    expect(tools).not.toContain('create_booking');
    await client.close();
    const refused = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, [script, '--stdio'], {
        env: { ...process.env, ...env, BOOKING_TOKEN: '' },
      });
      let err = '';
      child.stderr.on('data', (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.on('close', (code) => resolve({ code, err }));
    });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^Error: Set BOOKING_TOKEN/);
  });
});
