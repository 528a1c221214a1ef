// The examples of docs/access/kill-switch.md; the regions below are quoted there verbatim.
import { createSwitches, type Switches } from '@gatehousejs/access';
import type { Guard } from '@gatehousejs/core';
import {
  killSwitchGuards,
  rightsGuard,
  standardGuards,
  tenantGuard,
  untrustedTextGuard,
} from '@gatehousejs/guards';
import type { SqliteStores } from '@gatehousejs/stores';

/** The kill switches on the product's SQLite database: read, flipped and audited. */
export function sqliteSwitches(stores: SqliteStores): Switches {
  // #region switches
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork, // a change and its audit row commit together
    tenantDefault: true, // a tenant nobody has switched has agent access (the default)
  });
  // #endregion switches
  return switches;
}

/** The kill switches of servers that share one database with other processes: each read reused for 250 ms. */
export function sharedSwitches(stores: SqliteStores): Switches {
  // #region cached
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    // a read serves the calls of the next 250 ms; a flip resolves 250 ms after its commit
    readCacheMs: 250, // the same in every process on this database: servers, CLI, admin pages
  });
  // #endregion cached
  return switches;
}

/** Every guard a server needs, the kill switches among them. */
export function standardSwitchGuards(stores: SqliteStores, switches: Switches) {
  // #region standard
  // tenant, rights, both kill switches, rate, replay, confirm and output guards
  const guards = standardGuards(stores, { switches, retryAfterSeconds: 300 }); // 503 with Retry-After: 300
  // #endregion standard
  return guards;
}

/** The same duties built one by one: the kill switches from `killSwitchGuards`. */
export function handBuiltGuards(switches: Switches): Guard[] {
  // #region by-hand
  const guards: Guard[] = [
    tenantGuard(),
    rightsGuard(),
    // globalKillSwitchGuard (admission: 503) and tenantSwitchGuard (visibility: tenant_disabled)
    ...killSwitchGuards({ switches, retryAfterSeconds: 300 }),
    untrustedTextGuard(),
  ];
  // #endregion by-hand
  return guards;
}
