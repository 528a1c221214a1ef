import type { SwitchStore } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

function prepareSwitches(db: SqliteDatabase) {
  const read = db.prepare<[string], { is_on: 0 | 1 }>('SELECT is_on FROM gatehouse_switches WHERE key = ?');
  const write = db.prepare<[string, 0 | 1]>(
    'INSERT INTO gatehouse_switches (key, is_on) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET is_on = excluded.is_on',
  );
  const get = (key: string): boolean | undefined => {
    const row = read.get(key);
    return row === undefined ? undefined : row.is_on === 1;
  };
  return {
    get,
    set: db.transaction((key: string, on: boolean): boolean | undefined => {
      const before = get(key);
      write.run(key, on ? 1 : 0);
      return before;
    }),
  };
}

/**
 * A {@link SwitchStore} in `gatehouse_switches` (I6). `set` reads the previous
 * value and writes the new one in one IMMEDIATE transaction, so concurrent
 * setters, across processes, each see the value the one before them wrote and
 * the before/after audit trail has no gaps. A switch never set reads `undefined`
 * (the caller applies its default, defined once).
 *
 * @example
 * const switches = new SqliteSwitchStore(db);
 */
export class SqliteSwitchStore implements SwitchStore {
  readonly #sql: ReturnType<typeof prepareSwitches>;
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: LockOptions = {}) {
    this.#write = writer(db, 'SqliteSwitchStore', options);
    assertSchema(db, 'SqliteSwitchStore');
    this.#sql = prepareSwitches(db);
  }

  /** Synchronous {@link SwitchStore.get}. */
  getSync(key: string): boolean | undefined {
    return this.#sql.get(key);
  }

  /** Synchronous {@link SwitchStore.set}: returns the previous value, read under the write lock. */
  setSync(key: string, on: boolean): boolean | undefined {
    return this.#sql.set.immediate(key, on);
  }

  async get(key: string): Promise<boolean | undefined> {
    return this.getSync(key);
  }

  set(key: string, on: boolean, unit?: unknown): Promise<boolean | undefined> {
    return this.#write(unit, () => this.setSync(key, on));
  }
}
