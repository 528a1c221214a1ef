import type { ContractAuditRow } from './fixture.js';
import { stableJson } from './observe.js';

/** A row's time in epoch milliseconds, when it carries a readable `at` (a number, digits or ISO 8601). */
function timeOf(row: ContractAuditRow): number | undefined {
  const at =
    typeof row.at === 'string' ? (/^\d+$/.test(row.at) ? Number(row.at) : Date.parse(row.at)) : row.at;
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

/** Oldest first: by `at`, then `id`; rows without either keep their place among equals. */
function olderFirst(a: ContractAuditRow, b: ContractAuditRow): number {
  const [ta, tb] = [timeOf(a), timeOf(b)];
  if (ta !== undefined && tb !== undefined && ta !== tb) return ta - tb;
  if (a.id !== undefined && b.id !== undefined && a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * The audit rows oldest first (by `at`, then `id`), whatever order the host
 * returned them in; a stable sort, so rows without `at` and `id` keep the
 * host's order.
 */
export function sortAuditRows(rows: readonly ContractAuditRow[]): ContractAuditRow[] {
  return [...rows].sort(olderFirst);
}

const identity = (row: ContractAuditRow) => (typeof row.id === 'string' ? `id:${row.id}` : stableJson(row));

/**
 * The rows of `after` that `before` did not hold, oldest first: matched by
 * `id` when rows carry one, else by their content (so two equal rows count
 * twice). Position plays no part: a newest-first host, or one that returns
 * only its latest rows, yields the same rows as an oldest-first one, and two
 * rows written in the same millisecond cannot swap places with older ones.
 */
export function newAuditRows(
  before: readonly ContractAuditRow[],
  after: readonly ContractAuditRow[],
): ContractAuditRow[] {
  const seen = new Map<string, number>();
  for (const row of before) seen.set(identity(row), (seen.get(identity(row)) ?? 0) + 1);
  const added = after.filter((row) => {
    const key = identity(row);
    const left = seen.get(key) ?? 0;
    if (left === 0) return true;
    seen.set(key, left - 1);
    return false;
  });
  return sortAuditRows(added);
}
