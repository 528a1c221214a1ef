import type { SwitchStore } from '@gatehousejs/core';
import type pg from 'pg';
import { keyBytes, on as onUnit, prepared } from './sql.js';

const NAME = 'PostgresSwitchStore';

const GET = prepared('SELECT is_on FROM gatehouse_switches WHERE key = $1');

/** Writes the new value and keeps the one it replaced; a fresh row has no previous value. */
const SET = `INSERT INTO gatehouse_switches AS s (key, is_on, previous) VALUES ($1, $2, NULL)
  ON CONFLICT (key) DO UPDATE SET previous = s.is_on, is_on = excluded.is_on
  RETURNING previous`;

/**
 * A {@link SwitchStore} in the PostgreSQL table `gatehouse_switches` (I6).
 * `get` reads the table every time (no cache), so a switch set by one replica
 * holds on every replica at its next call. `set` is one upsert that returns
 * the value it replaced, so concurrent setters, across processes, each see
 * the value the one before them wrote, and the before/after audit trail has
 * no gaps. A switch never set reads `undefined` (the caller applies its
 * default). Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const switches = new PostgresSwitchStore(pool);
 */
export class PostgresSwitchStore implements SwitchStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async get(key: string): Promise<boolean | undefined> {
    const found = await this.#pool.query<{ is_on: boolean }>({ ...GET, values: [keyBytes(key)] });
    return found.rows[0]?.is_on;
  }

  async set(key: string, on: boolean, unit?: unknown): Promise<boolean | undefined> {
    const written = await onUnit(this.#pool, unit, NAME).query<{ previous: boolean | null }>(SET, [
      keyBytes(key),
      on,
    ]);
    return written.rows[0]?.previous ?? undefined;
  }
}
