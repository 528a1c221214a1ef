import { sql } from 'kysely';
import type { BookingDatabaseBase } from '../db/database.js';
import type { BookingDb } from '../db/tables.js';
import type { ServiceDeps, Versions } from './support.js';

/** What deps share whatever connection they are bound to. */
export interface BaseDeps {
  readonly clock: () => Date;
  readonly versions: Versions;
}

/** Runs `work` between SAVEPOINT and RELEASE on `db` (one connection), rolling back to it when `work` throws. */
async function inSavepoint<T>(db: BookingDb, name: string, work: () => Promise<T>): Promise<T> {
  const point = sql.raw(name);
  await sql`SAVEPOINT ${point}`.execute(db);
  try {
    const result = await work();
    await sql`RELEASE SAVEPOINT ${point}`.execute(db);
    return result;
  } catch (error) {
    await sql`ROLLBACK TO SAVEPOINT ${point}`.execute(db);
    await sql`RELEASE SAVEPOINT ${point}`.execute(db);
    throw error;
  }
}

/**
 * Service deps bound to a unit of work's handle: reads and writes go through
 * its connection (so they join its transaction), each service write is a
 * savepoint inside it on SQLite (on PostgreSQL it joins the transaction, and
 * a failure fails the whole unit), and check reads lock rows on PostgreSQL.
 */
export function unitDeps<THandle>(
  database: BookingDatabaseBase<THandle>,
  base: BaseDeps,
  handle: THandle,
): ServiceDeps {
  const db = database.writeIn(handle);
  let depth = 0;
  const deps: ServiceDeps = {
    ...base,
    db,
    locksRows: database.locksRows,
    transaction: async (work) => {
      if (!database.savepoints) return work(deps);
      depth += 1;
      try {
        return await inSavepoint(db, `booking_write_${depth}`, () => work(deps));
      } finally {
        depth -= 1;
      }
    },
  };
  return deps;
}

/**
 * Service deps outside any unit of work (REST reads, the CLI, read tools):
 * reads go through the reader; each write opens its own unit of work, so it
 * never lands inside another call's open transaction.
 */
export function freeDeps<THandle>(database: BookingDatabaseBase<THandle>, base: BaseDeps): ServiceDeps {
  return {
    ...base,
    db: database.reader,
    locksRows: false,
    transaction: (work) => database.stores.unitOfWork.run((handle) => work(unitDeps(database, base, handle))),
  };
}
