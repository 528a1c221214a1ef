/**
 * What one `create_booking` costs the product's database: services are
 * built once per call (inside the unit of work), the workspace is read
 * once, and statements are prepared once per process.
 */
import type { Statement } from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { BookingQueries } from '../src/services/bookingQueries.js';
import { berlin, testApp } from './fixtures/testApp.js';

interface Counted {
  prepared: string[];
  executed: string[];
}

/** Counts every statement prepared on the connection from now on, and every run of those. */
function countStatements(db: { prepare: (source: string) => Statement }): Counted {
  const counted: Counted = { prepared: [], executed: [] };
  const prepare = db.prepare.bind(db);
  db.prepare = (source: string) => {
    counted.prepared.push(source);
    const statement = prepare(source);
    for (const method of ['run', 'get', 'all'] as const) {
      const original = statement[method].bind(statement) as (...args: unknown[]) => unknown;
      (statement as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
        counted.executed.push(source);
        return original(...args);
      };
    }
    return statement;
  };
  return counted;
}

const product = (sources: readonly string[]) =>
  sources.filter((sql) => !/gatehouse_|^(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE)/i.test(sql.trim()));

describe('create_booking', () => {
  it('prepares at most 3 product statements once warm, and reads the workspace once', async () => {
    await using t = await testApp();
    const { database } = t.app;
    if (database.engine !== 'sqlite') throw new Error('the statement budget is measured on SQLite');
    const counted = countStatements(database.db as never);
    const decision = await t.app.credentials.authenticate({ token: await t.mint() });
    if (!decision.ok) throw new Error('mint failed');
    const { connection } = decision;
    const create = (days: number) =>
      t.app.mcp.callTool(connection, 'create_booking', {
        customer_id: 'cu_alan',
        starts_at: berlin(days, '08:00'),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      });
    counted.prepared.length = 0;
    const first = await create(15);
    expect(product(counted.prepared).length).toBeLessThanOrEqual(6); // cold: each text once
    expect(first.structuredContent, JSON.stringify(first.structuredContent)).toMatchObject({ status: 'ok' });
    counted.prepared.length = 0;
    counted.executed.length = 0;
    const second = await create(16);
    expect(second.structuredContent, JSON.stringify(second.structuredContent)).toMatchObject({
      status: 'ok',
    });
    const prepared = product(counted.prepared);
    const executed = product(counted.executed);
    expect(prepared.length).toBeLessThanOrEqual(3);
    expect(executed.filter((sql) => /from "?workspaces"?/i.test(sql))).toHaveLength(1);
    // workspace, duplicate lookup, customer, insert, read back
    expect(executed.length).toBeLessThanOrEqual(5);
  });
});

describe('find_bookings', () => {
  it('lists in start and id order along the (workspace_id, starts_at, id) index and stops at the limit, with no sort at all', async () => {
    await using t = await testApp();
    const { database } = t.app;
    if (database.engine !== 'sqlite') throw new Error('the query plan is read on SQLite');
    const counted = countStatements(database.db as never);
    const listed = await new BookingQueries(database.kysely, 'ws_acme').find({}, 20);
    expect(listed.length).toBeGreaterThan(0);
    const listing = product(counted.executed).find((sql) => /from "bookings" as "b"/i.test(sql));
    if (!listing) throw new Error(`no listing statement ran: ${counted.executed.join(' | ')}`);
    expect(listing).not.toMatch(/ in \(select/i);
    const parameters = (listing.match(/\?/g) ?? []).map(() => null);
    const plan = (
      database.db.prepare(`EXPLAIN QUERY PLAN ${listing}`).all(...parameters) as { detail: string }[]
    ).map((row) => row.detail);
    expect(plan.join('\n')).toMatch(/SEARCH b USING INDEX bookings_workspace_start_id/);
    expect(plan.join('\n')).not.toMatch(/TEMP B-TREE/);
  });
});
