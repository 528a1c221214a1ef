/**
 * The listing's plan on PostgreSQL before the table has statistics: a new
 * deployment's bookings grow faster than autovacuum analyzes them, and a
 * planner that believes the workspace holds a handful of rows may hash-join
 * and sort all of them to return twenty (6.6 ms at 3,000 bookings, growing
 * with each one). The (workspace_id, starts_at, id) index gives the
 * listing's whole order, so the planner walks it and stops at the limit
 * whatever it believes. Skipped with the reason printed when no PostgreSQL
 * answers (failing under CI=true).
 */
import { CompiledQuery, type Kysely, type KyselyPlugin } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { BookingTables } from '../src/db/tables.js';
import { BookingQueries } from '../src/services/bookingQueries.js';
import { postgresAvailable } from './fixtures/postgres.js';
import { testApp } from './fixtures/testApp.js';

const available = await postgresAvailable();
const BOOKINGS = 3_000;

interface PlanNode {
  readonly 'Node Type': string;
  readonly 'Index Name'?: string;
  readonly Plans?: readonly PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The SQL and parameters of the one query `run` sends through `db`. */
async function captured(
  db: Kysely<BookingTables>,
  run: (db: Kysely<BookingTables>) => Promise<unknown>,
): Promise<CompiledQuery> {
  let query: CompiledQuery | undefined;
  const plugin: KyselyPlugin = {
    transformQuery: (args) => {
      query ??= db.getExecutor().compileQuery(args.node, args.queryId);
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await run(db.withPlugin(plugin));
  if (!query) throw new Error('no query ran');
  return query;
}

describe.skipIf(!available)('the booking listing on PostgreSQL', () => {
  it('walks the (workspace_id, starts_at, id) index to the limit with no sort, before any statistics exist', async () => {
    await using t = await testApp({ engine: 'postgres' });
    const db = t.app.database.kysely;
    const raw = (text: string, parameters: readonly unknown[] = []) =>
      db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, [...parameters]));
    await raw('ALTER TABLE bookings SET (autovacuum_enabled = false)');
    await raw(
      `INSERT INTO bookings (id, workspace_id, customer_id, technician_id, starts_at, zone, duration_minutes,
         status, price_minor, currency, created_by, created_at, updated_at)
       SELECT 'bk_plan_' || n, 'ws_acme', 'cu_alan', NULL, $1::bigint + n * 300000, 'Europe/Berlin', 30,
         'scheduled', 4500, 'EUR', 'p_olivia', $1::bigint, $1::bigint
       FROM generate_series(1, $2::int) AS n`,
      [Date.UTC(2031, 0, 1), BOOKINGS],
    );

    const listing = await captured(db, (d) => new BookingQueries(d, 'ws_acme').find({}, 20));
    const explained = await raw(`EXPLAIN (FORMAT JSON) ${listing.sql}`, listing.parameters);
    const [explain] = explained.rows.map((row) => row['QUERY PLAN'] as { Plan: PlanNode }[]);
    if (!explain?.[0]) throw new Error('EXPLAIN returned no plan');
    const plan = explain[0].Plan;
    const nodes = nodesOf(plan);
    const types = nodes.map((node) => node['Node Type']);
    expect(types, JSON.stringify(plan)).not.toContain('Sort');
    expect(types).not.toContain('Incremental Sort');
    expect(types).not.toContain('Hash Join');
    expect(nodes.find((node) => node['Index Name'] === 'bookings_workspace_start_id')).toBeDefined();
    // and it answers in start order: the seeded bookings first, then the 3,000 from 2031
    const listed = await new BookingQueries(db, 'ws_acme').find({}, 20);
    expect(listed).toHaveLength(20);
    const starts = listed.map((booking) => booking.startsAt.epochMilliseconds);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
  });
});
