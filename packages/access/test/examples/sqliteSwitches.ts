import { createSwitches } from '@gatehousejs/access';
import type { SqliteStores } from '@gatehousejs/stores';

/** The kill switches on the product's SQLite database, as the kill-switch page shows them. */
export function sqliteSwitches(stores: SqliteStores) {
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork, // a change and its audit row commit together
    retryAfterSeconds: 300,
  });
  return switches;
}
