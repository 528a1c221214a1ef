// The statements a call runs (a switch read, a credential lookup, a rate
// take, a replay claim and completion, an audit row, the unit's serializing
// lock) are prepared once per connection, as PostgreSQL's own
// pg_prepared_statements shows; a pool made with preparedStatements: false
// (for a pooler that cannot keep them) runs the same calls unnamed; and a
// migration that adds a column under a live connection does not break a
// prepared read, because each names its columns.
import { ConfigurationError, type CredentialRecord } from '@gatehousejs/core';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresPool, createPostgresStores, type PostgresStores } from '../src/postgres.js';
import { createTestDatabase, postgresAvailable, type TestDatabase } from './fixtures/postgres.js';

const available = await postgresAvailable();

const credential = (id: string): CredentialRecord => ({
  id,
  tokenHash: `hash-${id}`,
  tenantIds: ['t1'],
  creatorId: 'p1',
  rights: ['notes.read'],
  clientLabel: 'test',
  toolset: null,
  createdAt: 1,
  expiresAt: null,
  revokedAt: null,
});

/** What one guarded call asks of the stores, start to finish. */
async function oneCall(stores: PostgresStores, n: number): Promise<void> {
  await stores.switches.get('global');
  expect(await stores.credentials.findByTokenHash('hash-c1')).toMatchObject({ id: 'c1' });
  expect(
    await stores.rateBuckets.take(`c1:write:${n}`, { capacity: 5, refillPerSecond: 1 }, n),
  ).toMatchObject({
    ok: true,
  });
  const begun = await stores.replay.begin(`k${n}`, 'd', 10_000, n);
  if (begun.state !== 'started') throw new Error(`the claim found the key ${begun.state}`);
  await stores.unitOfWork.run(async (client) => {
    await stores.unitOfWork.serialize?.(client, `create:${n}`);
    await stores.audit.append(
      {
        id: `a${n}`,
        at: n,
        channel: 'mcp',
        tenantId: 't1',
        connectionId: 'c1',
        clientName: 'test',
        actorId: 'p1',
        action: 'create_note',
        outcome: 'ok',
        objectIds: [`n${n}`],
        note: null,
      },
      client,
    );
    await stores.replay.complete(`k${n}`, begun.fence, 'd', { id: `n${n}` }, 60_000, n, client);
  });
}

/** The statements the single connection of `pool` holds prepared. */
async function preparedOn(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ name: string }>(
    'SELECT name FROM pg_prepared_statements ORDER BY name',
  );
  return rows.map((row) => row.name);
}

describe.skipIf(!available)('the PostgreSQL stores’ prepared statements', () => {
  const databases: TestDatabase[] = [];
  const pools: pg.Pool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.end()));
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });

  /** Stores on a pool of one connection, so every statement and the view share one session. */
  const oneSession = async (preparedStatements?: boolean) => {
    const database = await createTestDatabase();
    databases.push(database);
    const pool = createPostgresPool({
      connectionString: database.url,
      max: 1,
      ...(preparedStatements === undefined ? {} : { preparedStatements }),
    });
    pools.push(pool);
    const stores = await createPostgresStores(pool);
    await stores.credentials.insert(credential('c1'));
    return { stores, pool, database };
  };

  it('prepares each statement of a call once per connection and reuses it', async () => {
    const { stores, pool } = await oneSession();
    await oneCall(stores, 1);
    const first = await preparedOn(pool);
    // switch, credential, take, claim (durable, then without disk wait once paired), serialize, audit, complete
    expect(first.length).toBeGreaterThanOrEqual(7);
    expect(first.every((name) => /^gatehouse_[0-9a-f]{16}$/.test(name))).toBe(true);
    await oneCall(stores, 2);
    await oneCall(stores, 3);
    const later = await preparedOn(pool);
    // the second call switched the claim to its no-disk-wait form; after that nothing new is prepared
    await oneCall(stores, 4);
    expect(await preparedOn(pool)).toEqual(later);
    expect(later.length).toBeLessThanOrEqual(first.length + 1);
    expect(await stores.audit.list({ tenantId: 't1', limit: 10 })).toHaveLength(4);
  });

  it('runs every call unnamed on a pool made with preparedStatements: false', async () => {
    const { stores, pool } = await oneSession(false);
    await oneCall(stores, 1);
    await oneCall(stores, 2);
    expect(await preparedOn(pool)).toEqual([]);
    expect(await stores.audit.list({ tenantId: 't1', limit: 10 })).toHaveLength(2);
    expect(await stores.replay.begin('k2', 'd', 10_000, 3)).toMatchObject({ state: 'completed' });
  });

  it('keeps answering when a migration adds a column under a connection that holds the plan', async () => {
    const { stores, pool, database } = await oneSession();
    await oneCall(stores, 1);
    const { default: pgModule } = await import('pg');
    const other = new pgModule.Client({ connectionString: database.url });
    await other.connect();
    try {
      for (const table of ['gatehouse_credentials', 'gatehouse_pending_actions', 'gatehouse_replay'])
        await other.query(`ALTER TABLE ${table} ADD COLUMN added_later TEXT`);
    } finally {
      await other.end();
    }
    expect((await preparedOn(pool)).length).toBeGreaterThan(0);
    await oneCall(stores, 2);
    expect(await stores.credentials.findById('c1')).toMatchObject({ tokenHash: 'hash-c1' });
  });

  it('refuses a preparedStatements that is not a boolean', () => {
    expect(() => createPostgresPool({ preparedStatements: 'no' as never })).toThrow(ConfigurationError);
  });
});
