/**
 * What a create costs the database through each adapter, over HTTP, counted
 * on every SQLite connection (the write handle, the stores' bookkeeping
 * connection, the read connection): an MCP create runs at most the REST
 * create's statements + 6 (its rate take, its replay claim and completion),
 * and neither runs a PRAGMA.
 */
import { describe, expect, it } from 'vitest';
import { isPragma, traceStatements } from '../../../test/statementTrace.js';
import { rawClient, structured } from './fixtures/raw.js';
import { berlin, testApp } from './fixtures/testApp.js';

const ROUNDS = 10;

describe('create_booking and POST /bookings', () => {
  it('an MCP create runs at most the REST create’s statements + 6, and neither runs a PRAGMA', async () => {
    await using t = await testApp();
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
    using trace = traceStatements();
    const perCreate = async (create: () => Promise<void>) => {
      trace.take();
      for (let i = 0; i < ROUNDS; i++) await create();
      const ran = trace.take();
      return { statements: ran.length / ROUNDS, pragmas: ran.filter(isPragma).length };
    };
    const restCost = await perCreate(rest);
    const mcpCost = await perCreate(viaMcp);
    console.info(`statements per create: REST ${restCost.statements}, MCP ${mcpCost.statements}`);
    expect(restCost.pragmas).toBe(0);
    expect(mcpCost.pragmas).toBe(0);
    expect(mcpCost.statements).toBeLessThanOrEqual(restCost.statements + 6);
    expect(
      await t.count('bookings', "customer_id = 'cu_alan' AND duration_minutes = 30"),
    ).toBeGreaterThanOrEqual(ROUNDS + 2);
  });
});
