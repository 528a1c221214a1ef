import { type Credentials, createSwitches, toolsetVisibility } from '@gatehousejs/access';
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
  const switches = createSwitches({ store: stores.switches, audit: stores.audit, retryAfterSeconds: 300 });
  const server = gh.createServer({
    name: 'booking',
    version: '1.0.0',
    tools,
    authenticate: credentials.authenticate,
    audit: stores.audit,
    confirm: { store: stores.pendingActions },
    replay: { store: stores.replay }, // every write and confirm_action (I10)
    unitOfWork: stores.unitOfWork, // the write, its audit row and its replay record commit together
    rate: { store: stores.rateBuckets }, // per connection and effect class (I7)
    guards: [switches.guard], // 503 at admission; tenant_disabled hides every tool (I6)
    visibility: [toolsetVisibility({ compact: ['find_bookings', 'create_booking'] })],
  });
  return { server, switches };
}
