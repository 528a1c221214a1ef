/**
 * While its PostgreSQL is stopped, the product's other doors answer as MCP
 * does: the REST API and the operator pages say 503 with `Retry-After`
 * (nothing was changed), never a 500 and never the driver's text; the
 * process stays up, and both serve again once the database is back, with
 * no restart. The database is a cluster the test starts and stops itself.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startThrowawayPostgres,
  type ThrowawayPostgres,
  throwawayPostgresAvailable,
} from '../../../test/throwawayPostgres.js';
import { type BookingApp, createBookingApp } from '../src/app.js';
import { type Serving, serveHttp } from '../src/httpServer.js';
import { berlin } from './fixtures/testApp.js';
import { PagesBrowser } from './pagesClient.js';

describe.skipIf(!throwawayPostgresAvailable())('the REST API and the pages while PostgreSQL is down', () => {
  let postgres: ThrowawayPostgres;
  let app: BookingApp;
  let serving: Serving;

  beforeAll(async () => {
    postgres = (await startThrowawayPostgres())!;
    app = await createBookingApp({ databaseUrl: postgres.url, logger: pino({ level: 'silent' }) });
    serving = await serveHttp(app, { port: 0 });
  }, 60_000);

  afterAll(async () => {
    await serving?.close();
    await app?.close().catch(() => undefined);
    await postgres?.dispose();
  });

  it('answers 503 with Retry-After, changes nothing, and serves again when the database is back', async () => {
    const dan = await app.people.byId('p_dan');
    if (!dan) throw new Error('seed missing');
    const { token } = await app.apiAccess.createToken(dan, 'outage test');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const bookings = `${serving.apiUrl.href}/bookings`;
    const body = JSON.stringify({
      customer_id: 'cu_ada',
      starts_at: berlin(70, '10:00'),
      duration_minutes: 30,
      price: { amount: '80.00', currency: 'EUR' },
    });
    const browser = new PagesBrowser(serving.mcpUrl.origin);
    const link = await createLink(app);
    expect((await browser.get(link)).status).toBe(303);
    expect((await browser.get('/approvals')).status).toBe(200);

    await postgres.stop('fast');
    const read = await fetch(bookings, { headers });
    const write = await fetch(bookings, { method: 'POST', headers, body });
    const page = await browser.get('/approvals');
    for (const answer of [read, write]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      const text = await answer.text();
      expect(JSON.parse(text)).toMatchObject({ error: 'store_unavailable' });
      expect(text).not.toMatch(/ECONNREFUSED|terminat|127\.0\.0\.1/);
    }
    expect(page.status).toBe(503);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(page.text).toContain('Temporarily unavailable');

    await postgres.start();
    let back = 0;
    for (let i = 0; i < 50 && back !== 201; i++) {
      back = (await fetch(bookings, { method: 'POST', headers, body })).status;
      if (back !== 201) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(back).toBe(201);
    expect((await browser.get('/approvals')).status).toBe(200);
    // the create refused during the outage wrote nothing: exactly the one made after it
    const [made] = await app.database.kysely
      .selectFrom('bookings')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('created_by', '=', 'p_dan')
      .execute();
    expect(Number(made?.n)).toBe(1);
  }, 60_000);
});

/** A one-time sign-in link for the demo owner, as the start banner prints it. */
async function createLink(app: BookingApp): Promise<string> {
  const { createSignInLink } = await import('../src/pages/index.js');
  const url = new URL(await createSignInLink(app, 'p_olivia'));
  return `${url.pathname}${url.search}`;
}
