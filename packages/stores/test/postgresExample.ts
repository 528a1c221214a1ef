// The code of docs/stores.md's PostgreSQL section, compiled and run by postgresExample.test.ts.
import { createSwitches } from '@gatehousejs/access';
import { type Authenticate, createGatehouse, jsonSchema, type Presenter } from '@gatehousejs/core';
import { standardGuards, toolGuards } from '@gatehousejs/guards';
// #region product-database
import { createPostgresPool, createPostgresStores, type PostgresStores } from '@gatehousejs/stores/postgres';
import type { Pool, PoolClient } from 'pg';

/** The product's database: one pool, shared by the product and Gatehouse's stores. */
export interface ProductDatabase {
  readonly pool: Pool;
  readonly stores: PostgresStores;
}

/** Opens a pool, creates the product's tables, then Gatehouse's (migrated once, whatever the replicas do). */
export async function openProductDatabase(connectionString: string): Promise<ProductDatabase> {
  const pool = createPostgresPool({
    connectionString,
    max: 10,
    statementTimeoutMs: 5_000,
    connectionTimeoutMs: 2_000,
  });
  await pool.query(`CREATE TABLE IF NOT EXISTS bookings (
    id TEXT PRIMARY KEY,
    customer TEXT NOT NULL,
    slot TEXT NOT NULL
  )`);
  // #region stores
  const stores = await createPostgresStores(pool);
  // #endregion stores
  return { pool, stores };
}
// #endregion product-database

export interface BookingInput {
  readonly customer: string;
  readonly slot: string;
}

interface Booking {
  readonly id: string;
  readonly slot: string;
}

const bookingPresenter: Presenter<Booking> = {
  outputSchema: {
    type: 'object',
    properties: { booking: { type: 'object' } },
    required: ['booking'],
    additionalProperties: false,
  },
  present: (booking) => ({ booking: { id: booking.id, slot: booking.slot } }),
};

/** The product's booking service; its statements run on the connection they are given. */
export function bookingService(db: Pool | PoolClient) {
  return {
    async book(input: BookingInput): Promise<Booking> {
      const id = `bk_${input.slot}`;
      await db.query('INSERT INTO bookings (id, customer, slot) VALUES ($1, $2, $3)', [
        id,
        input.customer,
        input.slot,
      ]);
      return { id, slot: input.slot };
    },
    async findBySlot(slot: string): Promise<{ id: string } | undefined> {
      const { rows } = await db.query<{ id: string }>('SELECT id FROM bookings WHERE slot = $1', [slot]);
      return rows[0];
    },
  };
}

/** An MCP server whose writes commit with their audit rows and replay records, on any number of replicas. */
export function createBookingServer(
  { pool, stores }: ProductDatabase,
  authenticate: Authenticate<'bookings.write'>,
) {
  // #region gatehouse
  const gh = createGatehouse({
    rights: ['bookings.write'] as const,
    // Inside a write, `unit` is the unit of work's PoolClient between BEGIN and COMMIT.
    services: (_connection, _ports, unit) => ({
      bookings: bookingService((unit as PoolClient | undefined) ?? pool),
    }),
    toolGuards, // g.duplicate, g.version, g.batchCount in a tool's guards
  });
  // #endregion gatehouse
  const bookSlot = gh.defineTool({
    name: 'book_slot',
    description: 'Books a slot for a customer.',
    effect: 'write',
    requires: ['bookings.write'],
    input: jsonSchema<BookingInput>({
      type: 'object',
      properties: { customer: { type: 'string', minLength: 1 }, slot: { type: 'string', minLength: 1 } },
      required: ['customer', 'slot'],
    }),
    presenter: bookingPresenter,
    // #region duplicate
    // A second booking of a slot is refused `duplicate`, checked and inserted in one transaction (I11).
    guards: (g) => [
      g.duplicate({
        noun: 'booking',
        key: (input) => ({ slot: input.slot }),
        find: ({ input, services }) => services.bookings.findBySlot(input.slot),
        updateTool: 'move_booking',
      }),
    ],
    // #endregion duplicate
    run: ({ input, services }) => services.bookings.book(input),
  });
  const moveBooking = gh.defineTool({
    name: 'move_booking',
    description: 'Moves a booking to another slot.',
    effect: 'write',
    requires: ['bookings.write'],
    input: jsonSchema<{ id: string; slot: string }>({
      type: 'object',
      properties: { id: { type: 'string' }, slot: { type: 'string' } },
      required: ['id', 'slot'],
    }),
    presenter: bookingPresenter,
    run: ({ input }) => ({ id: input.id, slot: input.slot }),
  });
  // #region server
  // The kill switches, in the same database: every replica reads them (I6).
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
  });
  return gh.createServer({
    name: 'bookings',
    version: '1.0.0',
    tools: [bookSlot, moveBooking],
    authenticate,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    // Replay records, rate buckets and pending actions on the shared stores: a re-send replays on any replica.
    guards: standardGuards(stores, {
      switches,
      rate: { limits: { write: { capacity: 30, refillPerSecond: 0.5 } } },
    }),
  });
  // #endregion server
}

// #region housekeeping
/** A readiness probe and a purge timer, as a replica runs them. */
export function housekeeping({ stores }: ProductDatabase) {
  const timer = setInterval(() => void stores.purgeExpired(Date.now()).catch(() => undefined), 60_000);
  timer.unref();
  return {
    ready: () =>
      stores.ping().then(
        () => true,
        () => false,
      ),
    stop: () => clearInterval(timer),
  };
}
// #endregion housekeeping
