/**
 * Two replicas of the minimal host on one PostgreSQL database behind one
 * public origin: an authorization started on one is answered and redeemed
 * on the other, both take the token, a replica restarted with a new pool
 * and provider refreshes it (keys, grants and refresh tokens live in the
 * database, nothing in process memory), and a refresh token reused on the
 * other replica ends the grant everywhere.
 * Skipped with the reason printed when no PostgreSQL answers (failing under CI=true).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../stores/test/fixtures/postgres.js';
import {
  answerConsent,
  authorizeQuery,
  browserOf,
  CLIENT,
  listTickets,
  OPERATOR,
  pkce,
  redeem,
  refresh,
  startAuthorization,
  via,
} from './flow.js';
import { type Desk, postgresStores, startDesk } from './host.js';

const available = await postgresAvailable();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A replica: its own pool, stores, provider and port, on the shared database. */
const sessions = new Map<string, { readonly personId: string; readonly at: number }>();

async function replica(url: string, publicOrigin?: string) {
  const stores = await postgresStores(url);
  const desk = await startDesk({ stores, sessions, ...(publicOrigin ? { publicOrigin } : {}) });
  const stop = async () => {
    await desk.close();
    await stores.close();
  };
  return { desk, stores, stop };
}

describe.skipIf(!available)('two replicas on PostgreSQL', () => {
  it('authorize on one, consent and redeem on the other, refresh after a restart; reuse ends the grant on both', async () => {
    const database = await createTestDatabase();
    cleanups.push(() => database.drop());
    const a = await replica(database.url);
    cleanups.push(a.stop);
    let b = await replica(database.url, a.desk.origin);
    cleanups.push(() => b.stop());
    await a.desk.clients.save(CLIENT, OPERATOR);

    // the balancer sends each request where `target` says
    let target: Desk = a.desk;
    // the product's session store is shared: both replicas know the person's session
    const browser = browserOf(a.desk.origin, a.desk.signIn('p_ada'), (request) =>
      via(target.address)(request),
    );

    const { verifier, challenge } = pkce();
    const { path, state } = authorizeQuery(a.desk.mcpUrl.href, challenge);
    const consentPath = await startAuthorization(browser, path);
    target = b.desk;
    const back = await answerConsent(browser, consentPath, { decision: 'grant', rights: ['tickets.read'] });
    expect(back.searchParams.get('state')).toBe(state);
    const authorization = { code: back.searchParams.get('code') ?? '', verifier, state, iss: null };
    const tokens = await redeem(b.desk.address, a.desk.mcpUrl.href, authorization);
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const access = String(tokens.body.access_token);
    expect((await listTickets(a.desk.address, access)).tickets).toEqual([
      'Printer on fire',
      'Refund for order 7',
    ]);
    expect((await listTickets(b.desk.address, access)).tickets).toEqual([
      'Printer on fire',
      'Refund for order 7',
    ]);

    // B restarts: a new pool, a new provider, the same database
    await b.stop();
    b = await replica(database.url, a.desk.origin);
    const oldRefresh = String(tokens.body.refresh_token);
    const renewed = await refresh(b.desk.address, a.desk.mcpUrl.href, oldRefresh);
    expect(renewed.status, JSON.stringify(renewed.body)).toBe(200);
    const renewedAccess = String(renewed.body.access_token);
    expect((await listTickets(a.desk.address, renewedAccess)).status).toBe(200);

    // the old refresh token reused on A: the grant ends, on both replicas
    expect((await refresh(a.desk.address, a.desk.mcpUrl.href, oldRefresh)).body).toMatchObject({
      error: 'invalid_grant',
    });
    const grantId = (await a.desk.oauth.verify(renewedAccess))?.grantId;
    expect(grantId).toBeUndefined();
    await expect
      .poll(async () => {
        const rows = await a.stores.rows(
          "SELECT revoked_at FROM gatehouse_credentials WHERE client_label = 'OAuth: Desk App'",
        );
        return rows.map((row) => row.revoked_at !== null);
      })
      .toEqual([true]);
    expect((await listTickets(b.desk.address, renewedAccess)).status).toBe(401);
    expect((await listTickets(a.desk.address, access)).status).toBe(401);
  });
});
