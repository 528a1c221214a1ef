/**
 * Two replicas on one database answer one authorization between them: the
 * flow starts on replica A, the person consents and the code is exchanged on
 * replica B, the access token works at both MCP endpoints and a refresh on A
 * rotates what B issued. Keys, grants, codes, sessions and tokens are all in
 * the shared database, so this holds on SQLite (one file) and PostgreSQL.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type BookingApp, createBookingApp } from '../src/app.js';
import type { DatabaseConfig } from '../src/db/open.js';
import { type Serving, serveHttp } from '../src/httpServer.js';
import {
  authorizeQuery,
  consent,
  locationOf,
  pkce,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from './fixtures/oauthFlow.js';
import { postgresAvailable, postgresTestDatabase } from './fixtures/postgres.js';
import { rawClient } from './fixtures/raw.js';
import { seededTemplate, type TestApp } from './fixtures/testApp.js';
import { PagesBrowser, passwordOf } from './pagesClient.js';

const available = await postgresAvailable();

interface Replica {
  readonly app: BookingApp;
  readonly serving: Serving;
}

async function replica(config: DatabaseConfig, publicUrl?: string): Promise<Replica> {
  const app = await createBookingApp({
    ...config,
    logger: pino({ level: 'silent' }),
    oauth: { dynamicRegistration: true },
    ...(publicUrl ? { publicUrl } : {}),
  });
  return { app, serving: await serveHttp(app, { port: 0 }) };
}

async function storage(engine: 'sqlite' | 'postgres') {
  if (engine === 'postgres') {
    const pg = await postgresTestDatabase();
    return { config: { databaseUrl: pg.url } as DatabaseConfig, drop: () => pg.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'oauth-replicas-'));
  const file = join(dir, 'booking.db');
  copyFileSync(await seededTemplate(dir), file);
  return {
    config: { file } as DatabaseConfig,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each([
  ['SQLite', 'sqlite' as const, true],
  ['PostgreSQL', 'postgres' as const, available],
])('OAuth across two replicas on %s', (_name, engine, enabled) => {
  it.skipIf(!enabled)('starts on one replica, finishes on the other, and both accept the token', async () => {
    const store = await storage(engine);
    const a = await replica(store.config);
    const origin = a.serving.mcpUrl.origin;
    const b = await replica(store.config, origin);
    try {
      const bOrigin = b.serving.mcpUrl.origin;
      const onA = {
        origin,
        mcpUrl: a.serving.mcpUrl,
        browser: new PagesBrowser(origin),
        t: { app: a.app } as TestApp,
      };
      const clientId = await registerClient(origin);
      const { verifier, challenge } = pkce();
      const start = await onA.browser.get(authorizeQuery(onA, clientId, challenge));
      expect(start.status).toBe(303);
      const consentPath = locationOf(onA, start.headers).pathname;
      // the same browser (its cookies) goes on against replica B: sign-in, consent, resume
      const onB = { ...onA, origin: bOrigin, browser: new PagesBrowser(bOrigin) };
      for (const [name, value] of onA.browser.jar) onB.browser.jar.set(name, value);
      const { email, password } = await passwordOf(onA.t, 'p_olivia');
      await onB.browser.signIn(email, password, consentPath);
      expect((await onB.browser.get(consentPath)).status).toBe(200);
      const back = await consent(onB, consentPath, { decision: 'grant', rights: ['bookings.read'] });
      const tokens = await tokenRequest(bOrigin, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT_URI,
        client_id: clientId,
        code_verifier: verifier,
        resource: a.serving.mcpUrl.href,
      });
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const access = String(tokens.body.access_token);
      expect((await rawClient(a.serving.mcpUrl, access).listTools()).status).toBe(200);
      expect((await rawClient(b.serving.mcpUrl, access).listTools()).status).toBe(200);
      const rotated = await tokenRequest(origin, {
        grant_type: 'refresh_token',
        refresh_token: String(tokens.body.refresh_token),
        client_id: clientId,
      });
      expect(rotated.status).toBe(200);
    } finally {
      await b.serving.close();
      await a.serving.close();
      await b.app.close();
      await a.app.close();
      await store.drop();
    }
  });
});
