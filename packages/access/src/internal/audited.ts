import type { UnitOfWork } from '@gatehousejs/core';

/**
 * Runs a store change and its audit row together: in one unit of work when
 * the host gave one (both writes get its handle and commit or roll back
 * together, I15), else one after the other, each committing on its own.
 */
export function audited<T>(
  unitOfWork: UnitOfWork | undefined,
  work: (unit: unknown) => Promise<T>,
): Promise<T> {
  return unitOfWork ? unitOfWork.run(work) : work(undefined);
}
