import { type Credentials, createSwitches, toolsetVisibility } from '@gatehousejs/access';
import { standardGuards } from '@gatehousejs/guards';
import type { SqliteStores } from '@gatehousejs/stores';
import type { bookingProduct } from './bookingTools.js';

type Product = ReturnType<typeof bookingProduct>;
type Right = Product['gh']['rights'][number];

/** A booking server on the product's SQLite database: the stores and the writes share one handle. */
export function sqliteServer(
  { gh, tools }: Product,
  stores: SqliteStores,
  credentials: Pick<Credentials<Right>, 'authenticate'>,
) {
  // #region sqlite-server
  const switches = createSwitches({ store: stores.switches, audit: stores.audit });
  const server = gh.createServer({
    name: 'booking',
    version: '1.0.0',
    tools,
    authenticate: credentials.authenticate,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork, // the write, its audit row and its replay record commit together
    guards: [
      // tenant (I3), rights (I4), kill switches (I6: 503 at admission, tenant_disabled per tenant),
      // rate buckets (I7), replay (I10), two-step confirm (I9), output cleaning (I16)
      ...standardGuards(stores, { switches, retryAfterSeconds: 300 }),
      toolsetVisibility({ compact: ['find_bookings', 'create_booking'] }),
    ],
  });
  // #endregion sqlite-server
  return { server, switches };
}
