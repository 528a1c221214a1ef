import { createHash } from 'node:crypto';
import type pg from 'pg';

/** What a store statement runs on: the pool (commits on its own) or a unit of work's client. */
export type Queryable = Pick<pg.Pool, 'query'>;

/**
 * The connection a store call runs on: the unit of work's client when `unit`
 * is given (the statement joins its transaction), else the pool. Refuses a
 * handle that is not a `pg` client (a unit of work of another database).
 */
export function on(pool: pg.Pool, unit: unknown, store: string): Queryable {
  if (unit === undefined) return pool;
  if (typeof (unit as Partial<Queryable> | null)?.query !== 'function') {
    throw new Error(`${store}: the unit of work's handle is not a pg client; use postgresUnitOfWork.`);
  }
  return unit as Queryable;
}

/** A statement PostgreSQL parses and plans once per connection: `{ ...statement, values }` runs it. */
export interface PreparedStatement {
  /** `gatehouse_` and 16 hex digits of SHA-256 of the text: another text never shares a name. */
  readonly name: string;
  readonly text: string;
}

/**
 * `text` as a named statement. A connection parses and plans it at its
 * first run and from then on only binds and executes it, which saves the
 * database most of a short statement's work and the driver a round of
 * describe messages. The text names every column it reads (no `*`): a
 * migration that adds a column while a replica holds the plan must not
 * change what the plan returns. A pool made with `preparedStatements: false`
 * (a pooler that cannot keep them) runs the same text unnamed.
 */
export function prepared(text: string): PreparedStatement {
  const digest = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
  return Object.freeze({ name: `gatehouse_${digest}`, text });
}

/**
 * A 64-bit advisory lock key (as a decimal string, for a BIGINT parameter)
 * from the first eight bytes of SHA-256 of `name`: unlike `hashtext`, whose
 * 32 bits collide after tens of thousands of keys, two keys practically never share a lock.
 */
export function advisoryKey(name: string): string {
  const hash = createHash('sha256').update(name, 'utf8').digest();
  return hash.readBigInt64BE(0).toString();
}

/**
 * The head of a statement that commits without waiting for the WAL flush:
 * `set_config(…, true)` sets `synchronous_commit = off` for the statement's
 * own implicit transaction only, so the pooled connection's session keeps
 * its setting (a `SET` would leak into the next unit of work on it). Follow
 * it with `INSERT … SELECT … FROM no_disk_wait` or `UPDATE … FROM
 * no_disk_wait`; run it on the pool, never inside a unit of work (it would
 * make the unit's commit asynchronous too).
 */
export const WITHOUT_DISK_WAIT =
  "WITH no_disk_wait AS (SELECT set_config('synchronous_commit', 'off', true))";

/** A key column's value: the UTF-8 bytes of the string (PostgreSQL text cannot hold the NUL core's keys contain). */
export const keyBytes = (key: string): Buffer => Buffer.from(key, 'utf8');

/** Deletes `batch` rows per statement until a statement deletes fewer; returns how many in all. */
export async function inBatches(deleteBatch: () => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch();
    total += deleted;
    if (deleted < batch) return total;
  }
}
