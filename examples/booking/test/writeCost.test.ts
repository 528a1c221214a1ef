/**
 * What a create costs the database through each adapter, over HTTP: an MCP
 * create runs at most the REST create's statements + 6 (its rate take, its
 * replay claim and completion, the duplicate check). On SQLite every
 * connection is counted (the write handle, the stores' bookkeeping
 * connection, the read connection) and neither adapter runs a PRAGMA; on
 * PostgreSQL every pooled client is counted, and neither sets anything for
 * the session (the claim's `synchronous_commit = off` is its transaction's).
 */
import { describe, expect, it } from 'vitest';
import { isPragma, traceStatements } from '../../../test/statementTrace.js';
import { tracePostgresStatements } from './fixtures/postgresTrace.js';
import { rawClient, structured } from './fixtures/raw.js';
import { berlin, COUNTING_SWITCH_READ_CACHE_MS, testApp } from './fixtures/testApp.js';

const ROUNDS = 10;

/** The statements each engine's trace saw since the last call, and which of them it forbids here. */
function traceOf(engine: 'sqlite' | 'postgres') {
  if (engine === 'postgres') {
    const trace = tracePostgresStatements();
    const sessionSetting = (sql: string) =>
      /^\s*(SET|RESET)\s+(?!LOCAL\b)/i.test(sql) || /set_config\([^)]*false\s*\)/i.test(sql);
    return {
      take: () => trace.take(),
      forbidden: sessionSetting,
      [Symbol.dispose]: () => trace[Symbol.dispose](),
    };
  }
  const trace = traceStatements();
  return {
    take: () => trace.take().map((statement) => statement.source),
    forbidden: (sql: string) => isPragma({ source: sql }),
    [Symbol.dispose]: () => trace[Symbol.dispose](),
  };
}

describe.each(['sqlite', 'postgres'] as const)('create_booking and POST /bookings on %s', (engine) => {
  it('an MCP create runs at most the REST create’s statements + 6, and neither runs a PRAGMA or a session setting', async () => {
    // on PostgreSQL the trace patches pg's client before the app's pool connects
    using trace = traceOf(engine);
    await using t = await testApp({ engine, switchReadCacheMs: COUNTING_SWITCH_READ_CACHE_MS });
    const serving = await t.serve();
    const person = await t.app.people.byId('p_dan');
    if (!person) throw new Error('seed missing');
    const apiToken = (await t.app.apiAccess.createToken(person, 'cost test')).token;
    const mcp = rawClient(serving.mcpUrl, await t.mint());
    let day = 20;
    const rest = async () => {
      const response = await fetch(`${serving.apiUrl.href}/bookings`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiToken}` },
        body: JSON.stringify({
          customer_id: 'cu_ada',
          starts_at: berlin(day++, '11:00'),
          duration_minutes: 60,
          price: { amount: '80.00', currency: 'EUR' },
        }),
      });
      expect(response.status).toBe(201);
    };
    const viaMcp = async () => {
      const reply = await mcp.callTool('create_booking', {
        customer_id: 'cu_alan',
        starts_at: berlin(day++, '08:00'),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      });
      expect(structured(reply).status, JSON.stringify(reply.result)).toBe('ok');
    };
    // warm: statements prepared, claims paired with the unit of work
    for (let i = 0; i < 2; i++) {
      await rest();
      await viaMcp();
    }
    const perCreate = async (create: () => Promise<void>) => {
      trace.take();
      for (let i = 0; i < ROUNDS; i++) await create();
      const ran = trace.take();
      return { statements: ran.length / ROUNDS, forbidden: ran.filter(trace.forbidden) };
    };
    const restCost = await perCreate(rest);
    const mcpCost = await perCreate(viaMcp);
    console.info(
      `statements per create on ${engine}: REST ${restCost.statements}, MCP ${mcpCost.statements}`,
    );
    expect(restCost.forbidden).toEqual([]);
    expect(mcpCost.forbidden).toEqual([]);
    expect(mcpCost.statements).toBeLessThanOrEqual(restCost.statements + 6);
    expect(
      await t.count('bookings', "customer_id = 'cu_alan' AND duration_minutes = 30"),
    ).toBeGreaterThanOrEqual(ROUNDS + 2);
  });
});
