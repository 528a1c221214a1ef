/**
 * The authorization server's keys: generated once and shared through the
 * database when unset (every replica reads the same), taken from the
 * settings (`<prefix>JWKS` / `<prefix>COOKIE_KEYS`) when set (newest first, for
 * rotation), and bad values refused naming the variable, never its value.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { loadAuthorizationKeys } from '../src/keys.js';
import { oauthSettingsFromEnv } from '../src/server.js';
import { sqliteStores } from './host.js';

async function database() {
  const dir = mkdtempSync(join(tmpdir(), 'oauth-keys-'));
  const opened = sqliteStores(join(dir, 'desk.db'));
  return {
    db: opened,
    [Symbol.asyncDispose]: async () => {
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const privateJwk = (kid: string) => ({
  ...generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  kid,
});

describe('loadAuthorizationKeys', () => {
  it('generates the keys once and every later load (another replica) reads the same ones', async () => {
    await using d = await database();
    const first = await loadAuthorizationKeys(d.db.stores.authorization, {}, 1);
    const second = await loadAuthorizationKeys(d.db.stores.authorization, {}, 2);
    expect(second).toEqual(first);
    expect(first.jwks.keys).toHaveLength(1);
    expect(first.jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256' });
    expect(first.cookieKeys[0]?.length).toBeGreaterThanOrEqual(32);
    const rows = await d.db.rows('SELECT name, created_at FROM gatehouse_oauth_keys ORDER BY name');
    expect(rows).toEqual([
      { name: 'cookie_keys', created_at: 1 },
      { name: 'jwks', created_at: 1 },
    ]);
  });

  it('takes configured keys, newest first, and stores nothing', async () => {
    await using d = await database();
    const jwks = JSON.stringify({ keys: [privateJwk('new'), privateJwk('old')] });
    const cookieKeys = `${'n'.repeat(32)},${'o'.repeat(32)}`;
    const keys = await loadAuthorizationKeys(
      d.db.stores.authorization,
      oauthSettingsFromEnv(
        {
          BOOKING_OAUTH_JWKS: jwks,
          BOOKING_OAUTH_COOKIE_KEYS: cookieKeys,
        },
        'BOOKING_OAUTH_',
      ),
      1,
    );
    expect(keys.jwks.keys.map((k) => k.kid)).toEqual(['new', 'old']);
    expect(keys.cookieKeys).toEqual(['n'.repeat(32), 'o'.repeat(32)]);
    expect(await d.db.rows('SELECT * FROM gatehouse_oauth_keys')).toEqual([]);
  });

  it('refuses a public key, bad JSON and short cookie keys, naming the variable and not the value', async () => {
    await using d = await database();
    const publicOnly = JSON.stringify({ keys: [{ kty: 'EC', crv: 'P-256', x: 'secretish', y: 'y' }] });
    for (const values of [
      { BOOKING_OAUTH_JWKS: publicOnly },
      { BOOKING_OAUTH_JWKS: '{not json secretish' },
      { BOOKING_OAUTH_COOKIE_KEYS: 'secretish' },
    ]) {
      const sources = oauthSettingsFromEnv(values, 'BOOKING_OAUTH_');
      const refused = await loadAuthorizationKeys(d.db.stores.authorization, sources, 1).catch(
        (e: unknown) => e,
      );
      expect(ConfigurationError.is(refused)).toBe(true);
      expect(String((refused as Error).message)).toMatch(/BOOKING_OAUTH_(JWKS|COOKIE_KEYS)/);
      expect(String((refused as Error).message)).not.toContain('secretish');
    }
  });
});
