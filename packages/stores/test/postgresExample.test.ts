// docs/stores.md's PostgreSQL example, run against a live database: two
// replicas on one database, a write replayed across them, a duplicate refused.
import type { Connection } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';
import {
  createBookingServer,
  housekeeping,
  openProductDatabase,
  type ProductDatabase,
} from './postgresExample.js';

const available = await postgresAvailable();

const connection: Connection<'bookings.write'> = {
  connectionId: 'conn_1',
  tenantId: 't1',
  creatorId: 'p1',
  clientName: 'docs example',
  channel: 'mcp',
  rights: new Set(['bookings.write'] as const),
};

const authenticate = async () => ({ ok: false as const, status: 401 as const, reason: 'not used' });

describe.skipIf(!available)('the PostgreSQL example of docs/stores.md', () => {
  let database: TestDatabase;
  const replicas: ProductDatabase[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
    for (let i = 0; i < 2; i++) replicas.push(await openProductDatabase(database.url));
  });
  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.pool.end()));
    await database?.drop();
  });

  it('books once across two replicas, replays the re-send on the other one, and refuses a second booking of the slot', async () => {
    const [a, b] = replicas.map((replica) => createBookingServer(replica, authenticate));
    const first = await a!.callTool(
      connection,
      'book_slot',
      { customer: 'ada', slot: 'mon-9' },
      { requestId: 1 },
    );
    expect(first.structuredContent).toMatchObject({ status: 'ok', result: { booking: { id: 'bk_mon-9' } } });
    const resent = await b!.callTool(
      connection,
      'book_slot',
      { customer: 'ada', slot: 'mon-9' },
      { requestId: 2 },
    );
    expect(resent.structuredContent).toMatchObject({ replayed: true });
    const other = await b!.callTool(connection, 'book_slot', { customer: 'bob', slot: 'mon-9' });
    expect(other.structuredContent).toMatchObject({
      error: { code: 'duplicate', details: { existing_id: 'bk_mon-9' } },
    });
    const { rows } = await database.pool.query('SELECT id, customer FROM bookings');
    expect(rows).toEqual([{ id: 'bk_mon-9', customer: 'ada' }]);
    const audit = await database.pool.query('SELECT action, outcome FROM gatehouse_audit');
    expect(audit.rows).toEqual([{ action: 'book_slot', outcome: 'ok' }]);
  });

  it('answers the readiness probe', async () => {
    const jobs = housekeeping(replicas[0]!);
    try {
      expect(await jobs.ready()).toBe(true);
    } finally {
      jobs.stop();
    }
  });
});
