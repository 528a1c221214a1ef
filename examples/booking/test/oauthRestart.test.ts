/**
 * OAuth across two booking processes (the real entry point, bundled) on one
 * database, behind one public origin (a load balancer the test owns, the
 * processes' PUBLIC_URL and so the issuer): the person authorizes on replica
 * A, the code is redeemed and the refresh token rotated on replica B, then
 * both processes stop (SIGTERM) and two new ones start on other ports behind
 * the same origin. The latest refresh token still works, the signing and
 * cookie keys are the ones stored before (an authorization started before
 * the restart is answered after it), and the refresh token rotated away
 * before the restart is still refused, which revokes the grant and its
 * credential. Holds on SQLite (one file) and PostgreSQL.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  authorizeQuery,
  consent,
  locationOf,
  type OAuthScene,
  pkce,
  redeemCode,
  registerClient,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { type Balancer, startBalancer } from './fixtures/oauthProcessBalancer.js';
import { type ProcessStore, processStore } from './fixtures/oauthProcessStore.js';
import { postgresAvailable } from './fixtures/postgres.js';
import { rawClient } from './fixtures/raw.js';
import type { TestApp } from './fixtures/testApp.js';
import { PagesBrowser } from './pagesClient.js';
import { type Cluster, removeBundles, startCluster } from './replicas/cluster.js';

const available = await postgresAvailable();

afterAll(() => removeBundles());

/** The flow's helpers on the public origin; no app runs in this process (passwords come from the CLI). */
function sceneAt(origin: string): OAuthScene {
  return {
    t: undefined as unknown as TestApp,
    origin,
    mcpUrl: new URL('/mcp', `${origin}/`),
    browser: new PagesBrowser(origin),
  };
}

/** Olivia's email and a fresh password, set with the booking CLI as an operator would. */
async function passwordOf(cluster: Cluster): Promise<{ email: string; password: string }> {
  const out = await cluster.cli('person', 'password', 'ws_acme', 'p_olivia');
  const [, email = '', password = ''] = /New password for (\S+) \(shown once\): (\S+)/.exec(out) ?? [];
  return { email, password };
}

/** A refresh at the token endpoint of the public origin. */
const refresh = (origin: string, clientId: string, refreshToken: string) =>
  tokenRequest(origin, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

/** The status of tools/list at one replica's own MCP endpoint with `token`. */
const listAt = async (url: URL, token: string) => (await rawClient(url, token).listTools()).status;

/** Whether each refresh token of the grant is consumed, by token (opaque tokens are their row ids). */
async function refreshTokens(db: ProcessStore, grantId: string): Promise<Record<string, boolean>> {
  const rows = await db.rows<{ id: string; consumed_at: unknown }>(
    "SELECT id, consumed_at FROM gatehouse_oauth_records WHERE model = 'RefreshToken' AND grant_id = $1",
    grantId,
  );
  return Object.fromEntries(rows.map((row) => [row.id, row.consumed_at !== null]));
}

/** The audit rows of the OAuth channel for `action`. */
async function oauthAudit(db: ProcessStore, action: string): Promise<number> {
  const [row] = await db.rows<{ n: number | string }>(
    "SELECT count(*) AS n FROM gatehouse_audit WHERE channel = 'oauth' AND action = $1",
    action,
  );
  return Number(row?.n ?? 0);
}

/** The OAuth credentials (one per consent): id, person and revocation. */
const oauthCredentials = (db: ProcessStore) =>
  db.rows<{ id: string; creator_id: string; revoked_at: unknown }>(
    "SELECT id, creator_id, revoked_at FROM gatehouse_credentials WHERE client_label LIKE 'OAuth:%'",
  );

/** The stored signing and cookie keys, as rows. */
const storedKeys = (db: ProcessStore) =>
  db.rows<{ name: string; value: string }>(
    'SELECT name, value, created_at FROM gatehouse_oauth_keys ORDER BY name',
  );

/** The key ids the public JWKS lists. */
async function publishedKids(origin: string): Promise<string[]> {
  const response = await fetch(`${origin}/oauth/jwks`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as { keys: { kid: string }[] };
  return body.keys.map((key) => key.kid);
}

/** The origins of the replicas that answered the requests after the first `from`. */
const answeredBy = (balancer: Balancer, from: number) =>
  new Set(balancer.forwarded.slice(from).map((request) => request.target));

/** Waits until `check` holds (the grant's credential is revoked just after the refusal is answered). */
async function eventually(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('the condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each([
  ['SQLite', 'sqlite' as const, true],
  ['PostgreSQL', 'postgres' as const, available],
])('OAuth across two booking processes on %s that both restart', (_name, engine, enabled) => {
  it.skipIf(!enabled)(
    'authorizes on A, redeems and refreshes on B, and refreshes again after both restart',
    async () => {
      const db = await processStore(engine);
      const balancer = await startBalancer();
      let cluster: Cluster | undefined;
      try {
        cluster = await startCluster({
          count: 2,
          store: db.store,
          env: { PUBLIC_URL: balancer.origin, BOOKING_OAUTH_DYNAMIC_REGISTRATION: '1' },
        });
        const [a, b] = cluster.replicas;
        if (!a || !b) throw new Error('two replicas expected');
        const { origin } = balancer;
        const scene = sceneAt(origin);

        // A: registration, the authorization request, sign-in and consent
        balancer.route(a.url);
        const clientId = await registerClient(origin);
        const { verifier, challenge } = pkce();
        const start = await scene.browser.get(authorizeQuery(scene, clientId, challenge));
        expect(start.status, start.text).toBe(303);
        const consentPath = locationOf(scene, start.headers).pathname;
        const { email, password } = await passwordOf(cluster);
        await scene.browser.signIn(email, password, consentPath);
        expect((await scene.browser.get(consentPath)).status).toBe(200);
        const back = await consent(scene, consentPath, { decision: 'grant', rights: ['bookings.read'] });
        expect(back.searchParams.get('iss')).toBe(origin);
        expect(answeredBy(balancer, 0)).toEqual(new Set([a.url.origin]));

        // B: the code redeemed, the refresh token rotated
        balancer.route(b.url);
        const onB = balancer.forwarded.length;
        const redeemed = await redeemCode(origin, scene.mcpUrl, { clientId: clientId, verifier }, back);
        expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
        const first = String(redeemed.body.refresh_token);
        const rotated = await refresh(origin, clientId, first);
        expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
        const second = String(rotated.body.refresh_token);
        expect(second).not.toBe(first);
        expect(answeredBy(balancer, onB)).toEqual(new Set([b.url.origin]));
        expect(await listAt(a.url, String(rotated.body.access_token))).toBe(200);

        const [credential, ...others] = await oauthCredentials(db);
        expect(others).toEqual([]);
        expect(credential).toMatchObject({ creator_id: 'p_olivia', revoked_at: null });
        const grantId = credential?.id ?? '';
        expect(await oauthAudit(db, 'token.create')).toBe(1);
        const grants = await db.rows(
          "SELECT id FROM gatehouse_oauth_records WHERE model = 'Grant' AND id = $1",
          grantId,
        );
        expect(grants).toHaveLength(1);
        expect(await refreshTokens(db, grantId)).toEqual({ [first]: true, [second]: false });
        const keys = await storedKeys(db);
        expect(keys.map((key) => key.name)).toEqual(['cookie_keys', 'jwks']);
        const kids = await publishedKids(origin);
        expect(kids).toHaveLength(1);

        // an authorization started before the restart, answered after it (the cookie keys are the same)
        const pending = pkce();
        const started = await scene.browser.get(
          authorizeQuery(scene, clientId, pending.challenge, { prompt: 'consent' }),
        );
        expect(started.status, started.text).toBe(303);
        const pendingPath = locationOf(scene, started.headers).pathname;

        // both stop; two new processes start on other ports behind the same origin
        expect(await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')])).toEqual([0, 0]);
        const [a2, b2] = await Promise.all([cluster.add(), cluster.add()]);
        balancer.route(a2.url);
        expect(await storedKeys(db)).toEqual(keys);
        expect(await publishedKids(origin)).toEqual(kids);
        expect((await scene.browser.get(pendingPath)).status).toBe(200);
        const denied = await consent(scene, pendingPath, { decision: 'deny' });
        expect(denied.searchParams.get('error')).toBe('access_denied');

        // the latest refresh token, on the new B; the new access token at both new MCP endpoints
        balancer.route(b2.url);
        const again = await refresh(origin, clientId, second);
        expect(again.status, JSON.stringify(again.body)).toBe(200);
        const third = String(again.body.refresh_token);
        const access = String(again.body.access_token);
        expect(await listAt(a2.url, access)).toBe(200);
        expect(await listAt(b2.url, access)).toBe(200);
        expect(await refreshTokens(db, grantId)).toEqual({ [first]: true, [second]: true, [third]: false });
        expect(await oauthCredentials(db)).toHaveLength(1);
        expect(await oauthAudit(db, 'token.create')).toBe(1);

        // last: the token rotated away before the restart is refused, and its reuse revokes the grant
        balancer.route(a2.url);
        const reused = await refresh(origin, clientId, first);
        expect(reused.status).toBe(400);
        expect(reused.body.error).toBe('invalid_grant');
        await eventually(async () => (await oauthCredentials(db))[0]?.revoked_at !== null);
        expect(await oauthAudit(db, 'token.revoke')).toBe(1);
        expect(await refreshTokens(db, grantId)).toEqual({});
        expect(await listAt(b2.url, access)).toBe(401);
        expect((await refresh(origin, clientId, third)).status).toBe(400);
      } finally {
        await cluster?.close();
        await balancer.close();
        await db.drop();
      }
    },
    60_000,
  );
});
