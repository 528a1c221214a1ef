import { ConfigurationError } from '@gatehousejs/core';

/** Expired rows removed per write when none is given: more than one write ever adds. */
export const DEFAULT_SWEEP_BATCH = 16;

/** Checks a per-write sweep size; a store with no sweep would grow without bound. */
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
   * Expired rows deleted opportunistically by each write (default 16, at least 2).
   * Each write adds at most one row, so the table stays bounded by the live set.
   */
  readonly sweepBatch?: number;
}
