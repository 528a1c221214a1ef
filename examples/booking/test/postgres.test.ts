/**
 * The booking product on PostgreSQL: the same services, MCP tools, REST API
 * and CLI as on SQLite, run against a fresh database per test. Skipped with
 * the reason printed when no PostgreSQL answers (failing under CI=true).
 */
import { REPLAY_NOTE, sha256Hex } from '@gatehousejs/core';
import type { RawHttpClient } from '@gatehousejs/testing';
import { CompiledQuery, sql } from 'kysely';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createBookingApp } from '../src/app.js';
import { runCli } from '../src/cli/run.js';
import { postgresAvailable, postgresTestDatabase } from './fixtures/postgres.js';
import { codeOf, rawClient, structured } from './fixtures/raw.js';
import { berlin, type TestApp, testApp } from './fixtures/testApp.js';

const available = await postgresAvailable();

const onPostgres = () => testApp({ engine: 'postgres' });
const clientOf = async (t: TestApp) => rawClient((await t.serve()).mcpUrl, await t.mint());
const create = (days: number, extra: Record<string, unknown> = {}) => ({
  customer_id: 'cu_alan',
  starts_at: berlin(days, '08:00'),
  duration_minutes: 30,
  price: { minor_units: 4500, currency: 'EUR' },
  ...extra,
});
const confirm = (client: RawHttpClient, preview: Record<string, unknown>) =>
  client.callTool('confirm_action', {
    confirm_token: preview.confirm_token,
    confirm_summary: preview.confirm_summary,
  });

describe.skipIf(!available)('the booking product on PostgreSQL', () => {
  it('creates, updates and cancels a booking over MCP, one audit row each; a re-sent create is replayed', async () => {
    await using t = await onPostgres();
    const client = await clientOf(t);
    const first = structured(await client.callTool('create_booking', create(15)));
    expect(first.status, JSON.stringify(first)).toBe('ok');
    const id = (first.result as { id: string }).id;
    const again = structured(await client.callTool('create_booking', create(15)));
    expect(again).toEqual({ ...first, replayed: true, replay_note: REPLAY_NOTE });
    expect(await t.count('bookings', 'id = ?', id)).toBe(1);
    const version = (first.result as { version: string }).version;
    const moved = structured(await client.callTool('update_booking', { id, version, duration_minutes: 90 }));
    expect(moved.status, JSON.stringify(moved)).toBe('ok');
    const cancelled = structured(
      await client.callTool('update_booking', {
        id,
        version: (moved.result as { version: string }).version,
        status: 'cancelled',
      }),
    );
    expect(cancelled.status, JSON.stringify(cancelled)).toBe('ok');
    expect(await t.count('bookings', "id = ? AND status = 'cancelled' AND duration_minutes = 90", id)).toBe(
      1,
    );
    expect(await t.count('bookings', 'id = ? AND revision = 3', id)).toBe(1);
    expect(await t.count('gatehouse_audit', "channel = 'mcp' AND action = 'create_booking'")).toBe(1);
    expect(await t.count('gatehouse_audit', "channel = 'mcp' AND action = 'update_booking'")).toBe(2);
  });

  it('refuses a second create with the same customer and start, naming the existing booking', async () => {
    await using t = await onPostgres();
    const client = await clientOf(t);
    const first = structured(await client.callTool('create_booking', create(16)));
    const id = (first.result as { id: string }).id;
    const duplicate = await client.callTool('create_booking', create(16, { duration_minutes: 60 }));
    expect(codeOf(duplicate)).toBe('duplicate');
    expect(duplicate.text).toContain(id);
    expect(duplicate.text).toContain('update_booking');
    expect(await t.count('bookings', "customer_id = 'cu_alan'")).toBe(2);
  });

  it('refuses to double-book a technician, also when the creates race on separate connections', async () => {
    await using t = await onPostgres();
    const client = await clientOf(t);
    const first = structured(
      await client.callTool('create_booking', create(12, { technician_id: 'te_kim' })),
    );
    const id = (first.result as { id: string }).id;
    const overlapping = await client.callTool(
      'create_booking',
      create(12, { customer_id: 'cu_ada', technician_id: 'te_kim', starts_at: berlin(12, '08:15') }),
    );
    expect(codeOf(overlapping)).toBe('invalid_arguments');
    expect(overlapping.text).toContain(id);
    const customers = ['cu_ada', 'cu_grace', 'cu_alan', 'cu_ada', 'cu_grace', 'cu_alan'];
    const racing = await Promise.all(
      customers.map((customer, i) =>
        client.callTool(
          'create_booking',
          create(20, {
            customer_id: customer,
            technician_id: 'te_ravi',
            starts_at: berlin(20, `09:${10 + i}`),
          }),
        ),
      ),
    );
    expect(racing.filter((reply) => structured(reply).status === 'ok')).toHaveLength(1);
    expect(racing.filter((reply) => codeOf(reply) === 'invalid_arguments')).toHaveLength(
      customers.length - 1,
    );
    expect(
      await t.count('bookings', "technician_id = 'te_ravi' AND starts_at > ?", Date.now() + 19 * 86_400_000),
    ).toBe(1);
  });

  it('sends exactly one mail for a confirmed notify_customer, and nothing for the preview', async () => {
    await using t = await onPostgres();
    const client = await clientOf(t);
    const preview = structured(await client.callTool('notify_customer', { booking_id: 'bk_ada_boiler' }));
    expect(preview.status).toBe('PREVIEW');
    expect(await t.count('outbound_messages')).toBe(0);
    const sent = structured(await confirm(client, preview));
    expect(sent.status, JSON.stringify(sent)).toBe('ok');
    expect(structured(await confirm(client, preview)).replayed).toBe(true);
    expect(
      await t.count('outbound_messages', "booking_id = 'bk_ada_boiler' AND to_address = 'ada@example.com'"),
    ).toBe(1);
    expect(await t.count('outbound_messages')).toBe(1);
    expect(await t.count('gatehouse_audit', "action = 'notify_customer' AND outcome = 'ok'")).toBe(1);
  });

  it('creates and lists bookings through the REST API, audited with channel api', async () => {
    await using t = await onPostgres();
    const { apiUrl } = await t.serve();
    const dan = await t.app.people.byId('p_dan');
    if (!dan) throw new Error('seed missing');
    const { token } = await t.app.apiAccess.createToken(dan, 'test script');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${apiUrl.href}/bookings`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        ...create(30),
        customer_id: 'cu_ada',
        price: { amount: '80.00', currency: 'EUR' },
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const listed = (await (await fetch(`${apiUrl.href}/bookings`, { headers })).json()) as {
      bookings: { id: string }[];
    };
    expect(listed.bookings.map((b) => b.id)).toContain(id);
    expect(await t.count('bookings', "id = ? AND created_by = 'p_dan'", id)).toBe(1);
    expect(await t.count('gatehouse_audit', "channel = 'api' AND action = 'booking.create'")).toBe(1);
  });

  it('mints an MCP token from the CLI that the server accepts, stored hashed and audited with channel cli', async () => {
    const database = await postgresTestDatabase();
    try {
      const logger = pino({ level: 'silent' });
      let out = '';
      const keep = (text: string) => {
        out += text;
      };
      const io = { out: keep, err: keep };
      expect(await runCli(['seed'], { databaseUrl: database.url, io, logger })).toBe(0);
      const code = await runCli(
        ['token', 'create', '--workspace', 'ws_acme', '--person', 'p_dan', '--rights', 'bookings.read'],
        { databaseUrl: database.url, io, logger },
      );
      expect(code, out).toBe(0);
      const token = /token {4}(ghmcp_\S+)/.exec(out)?.[1] ?? '';
      const app = await createBookingApp({ databaseUrl: database.url, seed: false, logger });
      try {
        const decision = await app.credentials.authenticate({ token });
        expect(decision.ok && [...decision.connection.rights]).toEqual(['bookings.read']);
        const rows = await app.database.kysely
          .selectFrom('gatehouse_credentials')
          .select('id')
          .where('client_label', '=', 'CLI token')
          .where(sql<boolean>`token_hash = ${sha256Hex(token)}`)
          .execute();
        expect(rows).toHaveLength(1);
        const audited = await app.database.kysely.executeQuery<{ n: number }>(
          CompiledQuery.raw(
            "SELECT count(*) AS n FROM gatehouse_audit WHERE channel = 'cli' AND action = 'token.create'",
          ),
        );
        expect(Number(audited.rows[0]?.n)).toBe(1);
        expect(app.database.file).not.toContain('@');
      } finally {
        await app.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('migrates and seeds once when three processes open a fresh database at once', async () => {
    const database = await postgresTestDatabase();
    try {
      const logger = pino({ level: 'silent' });
      const apps = await Promise.all(
        [1, 2, 3].map(() => createBookingApp({ databaseUrl: database.url, logger })),
      );
      try {
        expect(apps.filter((app) => app.seeded)).toHaveLength(1);
        const [app] = apps;
        const migrations = await app?.database.kysely
          .selectFrom('workspaces')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirst();
        expect(Number(migrations?.n)).toBe(2);
      } finally {
        for (const app of apps) await app.close();
      }
    } finally {
      await database.drop();
    }
  });

  it('purges expired REST sessions in the housekeeping round', async () => {
    await using t = await onPostgres();
    await t.exec(
      "INSERT INTO sessions (token_hash, person_id, created_at, expires_at) VALUES ('expired', 'p_dan', 0, 1), ('live', 'p_dan', 0, ?)",
      Date.now() + 3_600_000,
    );
    await t.app.housekeeping.runOnce();
    expect(await t.rows('SELECT token_hash FROM sessions ORDER BY token_hash')).toEqual([
      { token_hash: 'live' },
    ]);
  });
});
