import { createSwitches, type Switches } from '@gatehousejs/access';
import { killSwitchGuards } from '@gatehousejs/guards';
import type { SqliteStores } from '@gatehousejs/stores';

/** The kill switches on the product's SQLite database, as the kill-switch page shows them. */
export function sqliteSwitches(stores: SqliteStores) {
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork, // a change and its audit row commit together
  });
  return switches;
}

/** The guards that enforce them server-wide: `createServer({ guards: [...switchGuards(switches), …] })`. */
export function switchGuards(switches: Switches) {
  return killSwitchGuards({ switches, retryAfterSeconds: 300 }); // the global switch answers 503, Retry-After: 300
}
