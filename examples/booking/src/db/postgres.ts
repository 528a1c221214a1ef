import { createPostgresPool, createPostgresStores } from '@gatehousejs/stores/postgres';
import { Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { redactedDatabaseUrl } from '../config.js';
import type { BookingStores, PostgresBookingDatabase } from './database.js';
import { migrateProductSchemaPostgres } from './schemaPostgres.js';
import type { BookingDb, BookingTables } from './tables.js';

/** How long a statement waits for a free connection: admission's own time limit, so the two limits agree. */
export const POOL_WAIT_MS = 5_000;

/**
 * A pool that hands out exactly one client, whose `release` does nothing: a
 * Kysely over it runs every statement on that client, inside the
 * transaction its owner (core's unit of work) opened and will end.
 */
function oneClientPool(client: pg.PoolClient) {
  const lent = { query: client.query.bind(client), release: () => undefined };
  return { connect: async () => lent, end: async () => undefined };
}

/**
 * Opens the product on PostgreSQL: a pool (BIGINT read as numbers, a
 * statement timeout), the product schema migrated under an advisory lock,
 * Gatehouse's stores on the same pool, and Kysely over the pool for reads
 * and writes outside MCP. `writeIn(client)` is a Kysely on a unit of work's
 * client, so the product's writes join core's transaction. Errors never
 * carry the URL (it may hold a password).
 */
export async function openPostgresBooking(url: string, now: number): Promise<PostgresBookingDatabase> {
  // A burst waits for a connection as long as admission waits for its stores
  // (5 s, the same budget), then answers 503 or store_unavailable with a retry
  // hint; the replay lease (10 s) outlasts a renewal that waits that long.
  const pool = createPostgresPool({ connectionString: url, max: 10, connectionTimeoutMs: POOL_WAIT_MS });
  try {
    // Gatehouse's tables first: a product migration moves the authorization server's rows into them
    const pgStores = await createPostgresStores(pool, {});
    await migrateProductSchemaPostgres(pool, now);
    const kysely = new Kysely<BookingTables>({ dialect: new PostgresDialect({ pool }) });
    const units = new WeakMap<object, BookingDb>();
    const writeIn = (client: pg.PoolClient): BookingDb => {
      let db = units.get(client);
      if (!db) {
        db = new Kysely<BookingTables>({ dialect: new PostgresDialect({ pool: oneClientPool(client) }) });
        units.set(client, db);
      }
      return db;
    };
    const stores: BookingStores<pg.PoolClient> = pgStores;
    return {
      engine: 'postgres',
      file: redactedDatabaseUrl(url),
      kysely,
      reader: kysely,
      stores,
      rateStores: {},
      locksRows: true,
      savepoints: false,
      writeIn,
      write: (work) => pgStores.unitOfWork.run((client) => work(writeIn(client), client)),
      // Kysely ends the pool only when a query went through it; end it here otherwise,
      // or its idle connections keep a short-lived process (the CLI) alive.
      close: async () => {
        await kysely.destroy();
        if (!pool.ended) await pool.end();
      },
    };
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}
