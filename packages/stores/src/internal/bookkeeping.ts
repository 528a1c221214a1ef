import Database from 'better-sqlite3';
import type { SqliteDatabase } from '../database.js';
import { rememberBusyTimeout } from './lockWait.js';

/**
 * A second connection on the product's file for the stores' bookkeeping
 * that need not wait for the disk: rate takes (a take lost with the machine
 * only grants a token back) and replay claims whose completion commits in a
 * unit of work on the same file (the unit's durable commit syncs the shared
 * write-ahead log up to and past the claim). `synchronous = NORMAL` (a commit
 * appends to the log without an fsync; checkpoints still sync, so no other
 * connection's commit is put at risk) and busy timeout 0 (a held lock fails
 * at once and the stores retry on timers), both set once when it opens.
 */
export interface Bookkeeping {
  /** The bookkeeping connection, opened on first use; `db` itself once `db` is closed (its statements then throw). */
  connection(): SqliteDatabase;
  /** Closes the bookkeeping connection for good (the host closes `db`); later bookkeeping runs on `db`. Idempotent. */
  close(): void;
}

/** Whether `db` is a file in WAL mode with nothing attached: the one case where two connections share one log. */
export function sharesOneLog(db: SqliteDatabase): boolean {
  if (db.memory || db.readonly || !db.open || db.name === '') return false;
  if (db.pragma('journal_mode', { simple: true }) !== 'wal') return false;
  const files = db.pragma('database_list') as { name: string }[];
  return files.every((file) => file.name === 'main' || file.name === 'temp');
}

/**
 * The bookkeeping connection of `db`, or undefined where a second connection
 * would not share `db`'s log (in memory, not in WAL mode, a file attached):
 * there every store write stays on `db` and waits for the disk as `db` does.
 */
export function bookkeepingFor(db: SqliteDatabase): Bookkeeping | undefined {
  if (!sharesOneLog(db)) return undefined;
  let own: SqliteDatabase | undefined;
  let closed = false;
  const close = () => {
    closed = true;
    if (own?.open) own.close();
  };
  return Object.freeze({
    connection(): SqliteDatabase {
      if (closed || !db.open) {
        close();
        return db;
      }
      if (!own?.open) {
        own = new Database(db.name, { fileMustExist: true, timeout: 0 });
        own.pragma('synchronous = NORMAL');
        rememberBusyTimeout(own, 0);
      }
      return own;
    },
    close,
  });
}
