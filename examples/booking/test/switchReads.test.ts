/**
 * The kill switches are read once per 250 ms per process, not on every call,
 * and a flip from another process on the same database (the CLI, an admin
 * page on another replica) resolves only once every server's reuse of its
 * last read has run out: the next call after the flip is refused.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { traceStatements } from '../../../test/statementTrace.js';
import { createBookingApp } from '../src/app.js';
import { tracePostgresStatements } from './fixtures/postgresTrace.js';
import { rawClient, structured } from './fixtures/raw.js';
import { berlin, COUNTING_SWITCH_READ_CACHE_MS, testApp } from './fixtures/testApp.js';

const OPS = { actorId: 'ops', channel: 'cli' };

describe.each(['sqlite', 'postgres'] as const)('kill switch reads on %s', (engine) => {
  it('a flip from another process refuses the very next call, although the server had just read the switch', async () => {
    await using t = await testApp({ engine });
    const { mcpUrl } = await t.serve();
    const client = rawClient(mcpUrl, await t.mint());
    const operator = await createBookingApp({
      ...(engine === 'postgres' ? { databaseUrl: t.file } : { file: t.file }),
      seed: false,
      logger: pino({ level: 'silent' }),
    });
    try {
      // the server reads both switches now and may reuse those reads for 250 ms
      expect((await client.listTools()).status).toBe(200);
      const started = performance.now();
      await operator.switches.setTenantAccess('ws_acme', false, OPS);
      expect(performance.now() - started).toBeGreaterThanOrEqual(250);
      const disabled = await client.callTool('find_bookings', {});
      expect(structured(disabled).status).toBe('error');
      expect((structured(disabled) as { error: { code: string } }).error.code).toBe('tenant_disabled');

      await operator.switches.setTenantAccess('ws_acme', true, OPS);
      expect((await client.listTools()).status).toBe(200);
      const before = await t.count('bookings');
      await operator.switches.setGlobal(true, OPS);
      const refused = await client.callTool('create_booking', {
        customer_id: 'cu_alan',
        starts_at: berlin(15, '08:00'),
        duration_minutes: 30,
        price: { minor_units: 4500, currency: 'EUR' },
      });
      expect(refused.status).toBe(503);
      expect(await t.count('bookings')).toBe(before);
      await operator.switches.setGlobal(false, OPS);
      expect((await client.listTools()).status).toBe(200);
      expect(await t.count('gatehouse_audit', "action = 'switch.set' AND channel = 'cli'")).toBe(4);
    } finally {
      await operator.close();
    }
  });
});

describe('kill switch reads on sqlite', () => {
  it('reads neither switch again within its reuse window: calls in a row run no switch statement after the first', async () => {
    await using t = await testApp({ switchReadCacheMs: COUNTING_SWITCH_READ_CACHE_MS });
    const client = rawClient((await t.serve()).mcpUrl, await t.mint());
    expect((await client.listTools()).status).toBe(200);
    using trace = traceStatements();
    trace.take();
    for (let i = 0; i < 5; i++) expect((await client.callTool('find_bookings', {})).status).toBe(200);
    const ran = trace.take();
    expect(ran.length).toBeGreaterThan(0);
    expect(ran.filter((statement) => statement.source.includes('gatehouse_switches'))).toEqual([]);
  });
});

describe('kill switch reads on postgres', () => {
  it('an MCP get runs one statement more than the REST get (its rate take), and no switch read within its reuse window', async () => {
    // every statement any pool client sends, recorded from before the app connects
    using trace = tracePostgresStatements();
    await using t = await testApp({ engine: 'postgres', switchReadCacheMs: COUNTING_SWITCH_READ_CACHE_MS });
    const serving = await t.serve();
    const person = await t.app.people.byId('p_dan');
    if (!person) throw new Error('seed missing');
    const apiToken = (await t.app.apiAccess.createToken(person, 'statement count')).token;
    const mcp = rawClient(serving.mcpUrl, await t.mint());
    const rest = async () => {
      const response = await fetch(`${serving.apiUrl.href}/bookings/bk_ada_boiler`, {
        headers: { authorization: `Bearer ${apiToken}` },
      });
      expect(response.status).toBe(200);
    };
    const viaMcp = async () => {
      expect(structured(await mcp.callTool('get_booking', { id: 'bk_ada_boiler' })).status).toBe('ok');
    };
    await rest();
    await viaMcp();
    const perGet = async (get: () => Promise<void>) => {
      trace.take();
      for (let i = 0; i < 5; i++) await get();
      const sent = trace.take();
      return {
        statements: sent.length / 5,
        switchReads: sent.filter((sql) => sql.includes('gatehouse_switches')),
      };
    };
    const restCost = await perGet(rest);
    const mcpCost = await perGet(viaMcp);
    expect(mcpCost.switchReads).toEqual([]);
    expect(mcpCost.statements).toBe(restCost.statements + 1);
  });
});
