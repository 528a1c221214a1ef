/**
 * oidc-provider's storage on the stores' AuthorizationStore (SQLite and
 * PostgreSQL): upsert/find by id, uid and user code, consume,
 * expiry, revocation by grant, destroy, and the housekeeping purge.
 * PostgreSQL is skipped with the reason printed when no server answers (failing under CI=true).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, postgresAvailable } from '../../stores/test/fixtures/postgres.js';
import { oauthAdapter } from '../src/adapter.js';
import { type DeskStores, postgresStores, sqliteStores } from './host.js';

const available = await postgresAvailable();

async function openDatabase(engine: 'sqlite' | 'postgres') {
  if (engine === 'postgres') {
    const pg = await createTestDatabase();
    const database = await postgresStores(pg.url);
    return {
      database,
      [Symbol.asyncDispose]: async () => {
        await database.close();
        await pg.drop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'oauth-adapter-'));
  const database = sqliteStores(join(dir, 'desk.db'));
  return {
    database,
    [Symbol.asyncDispose]: async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Row = { model: string; id: string; grant_id: string | null; expires_at: number | null };
/** The records, times as numbers (PostgreSQL answers BIGINT as text). */
const rowsOf = async (database: DeskStores): Promise<Row[]> =>
  (await database.rows('SELECT * FROM gatehouse_oauth_records ORDER BY id, model')).map((r) => ({
    ...(r as Row),
    expires_at: r.expires_at === null ? null : Number(r.expires_at),
  }));

describe.each([
  ['SQLite', 'sqlite' as const, true],
  ['PostgreSQL', 'postgres' as const, available],
])('oauthAdapter on %s', (_name, engine, enabled) => {
  it.skipIf(!enabled)(
    'stores, finds, consumes and destroys a model row by id, uid and user code',
    async () => {
      await using db = await openDatabase(engine);
      let now = 1_000_000;
      const factory = oauthAdapter(db.database.authorization, () => now);
      const codes = factory('AuthorizationCode');
      const sessions = factory('Interaction');
      await codes.upsert('code1', { grantId: 'g1', accountId: 'p_olivia' }, 60);
      await sessions.upsert('code1', { uid: 'u1' }, 60);
      await factory('DeviceCode').upsert('dc1', { userCode: 'ABCD-EFGH', grantId: 'g1' }, 60);

      expect(await codes.find('code1')).toEqual({ grantId: 'g1', accountId: 'p_olivia' });
      expect(await sessions.find('code1')).toEqual({ uid: 'u1' });
      expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1' });
      expect(await factory('DeviceCode').findByUserCode('ABCD-EFGH')).toMatchObject({ grantId: 'g1' });
      expect((await rowsOf(db.database)).map((r) => [r.model, r.id, r.grant_id, r.expires_at])).toEqual([
        ['AuthorizationCode', 'code1', 'g1', 1_060_000],
        ['Interaction', 'code1', null, 1_060_000],
        ['DeviceCode', 'dc1', 'g1', 1_060_000],
      ]);

      now = 2_000_000 - 60_000;
      await codes.upsert('code1', { grantId: 'g1', accountId: 'p_olivia' }, 60);
      await codes.consume('code1');
      expect(await codes.find('code1')).toEqual({ grantId: 'g1', accountId: 'p_olivia', consumed: 1940 });
      await codes.upsert('code1', { grantId: 'g1', accountId: 'p_olivia', consumed: 1940 }, 60);
      expect(await codes.find('code1')).toMatchObject({ consumed: 1940 });

      await sessions.destroy('code1');
      expect(await sessions.find('code1')).toBeUndefined();
      expect(await codes.find('code1')).toBeDefined();
    },
  );

  it.skipIf(!enabled)('never returns an expired row, and the purge deletes it', async () => {
    await using db = await openDatabase(engine);
    let now = 10_000;
    const tokens = oauthAdapter(db.database.authorization, () => now)('AccessToken');
    await tokens.upsert('short', { grantId: 'g1' }, 1);
    await tokens.upsert('long', { grantId: 'g1' }, 600);
    await tokens.upsert('client', { client_id: 'c' });
    now = 11_000;
    expect(await tokens.find('short')).toBeUndefined();
    expect(await tokens.find('long')).toBeDefined();
    expect(await db.database.authorization.purgeExpired(now)).toBe(1);
    expect((await rowsOf(db.database)).map((r) => r.id)).toEqual(['client', 'long']);
  });

  it.skipIf(!enabled)("revokes every row of one model's grant, and only that grant's", async () => {
    await using db = await openDatabase(engine);
    const factory = oauthAdapter(db.database.authorization, () => 0);
    await factory('RefreshToken').upsert('r1', { grantId: 'g1' }, 600);
    await factory('RefreshToken').upsert('r2', { grantId: 'g2' }, 600);
    await factory('AccessToken').upsert('a1', { grantId: 'g1' }, 600);
    await factory('RefreshToken').revokeByGrantId('g1');
    expect((await rowsOf(db.database)).map((r) => `${r.model}:${r.id}`)).toEqual([
      'AccessToken:a1',
      'RefreshToken:r2',
    ]);
  });
});
