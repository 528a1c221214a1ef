import { ConfigurationError } from '@gatehousejs/core';

/** Expired rows removed per statement when none is given: more than one insert ever adds. */
export const DEFAULT_SWEEP_BATCH = 16;

/** Checks a sweep size (rows per PostgreSQL purge statement). */
export function sweepBatch(store: string, value: number | undefined): number {
  const batch = value ?? DEFAULT_SWEEP_BATCH;
  if (!Number.isInteger(batch) || batch < 2) {
    throw new ConfigurationError(`${store}: sweepBatch must be an integer of at least 2.`);
  }
  return batch;
}

/** Checks a non-negative integer duration option. */
export function duration(store: string, name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`${store}: ${name} must be a non-negative integer of milliseconds.`);
  }
  return value;
}

/** Options shared by the stores whose rows expire. */
export interface SweepOptions {
  /**
   * Expired rows deleted per statement of a PostgreSQL purge (default 16, at
   * least 2; SQLite purges in one statement and only checks the value). No
   * request deletes an expired row: replay records, rate buckets and pending
   * actions are purged from a timer (`purgeExpired`, `housekeeping`).
   */
  readonly sweepBatch?: number;
}
