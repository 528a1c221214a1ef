import { describe, expect, it } from 'vitest';
import { createSqliteStores, type SqliteStores } from '../src/index.js';
import { pendingAction } from './fixtures/records.js';
import { type TempDatabase, tempDatabase } from './fixtures/tempDatabase.js';

/** Two stores on two connections to one file, as two replicas would hold them. */
const twoConnections = async (
  fn: (a: SqliteStores, b: SqliteStores, temp: TempDatabase) => Promise<void>,
) => {
  const temp = tempDatabase();
  try {
    await fn(createSqliteStores(temp.open()), createSqliteStores(temp.open()), temp);
  } finally {
    temp.dispose();
  }
};

const action = pendingAction('pa1');

describe('createSqliteStores on two connections to one file', () => {
  it('lets only one connection start a key, and shows the other its result', async () => {
    await twoConnections(async (a, b) => {
      const calls = Array.from({ length: 200 }, (_, i) =>
        (i % 2 === 0 ? a : b).replay.begin('k', 'd', 5_000, 0),
      );
      const answers = await Promise.all(calls);
      const started = answers.flatMap((x) => (x.state === 'started' ? [x.fence] : []));
      expect(started).toHaveLength(1);
      expect(await a.replay.complete('k', started[0] ?? '', 'd', { id: 'b1' }, 60_000, 1)).toBe(true);
      expect(await b.replay.begin('k', 'd', 5_000, 2)).toMatchObject({
        state: 'completed',
        result: { id: 'b1' },
      });
    });
  });

  it('lets only one connection claim a pending action', async () => {
    await twoConnections(async (a, b) => {
      await a.pendingActions.insert(action);
      await expect(b.pendingActions.insert(action)).rejects.toThrow(/already exists/);
      const claims = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? a : b).pendingActions.transition('pa1', ['pending'], 'claimed'),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
    });
  });

  it('shares one rate bucket, switch and revocation between connections', async () => {
    await twoConnections(async (a, b) => {
      const limit = { capacity: 3, refillPerSecond: 1 };
      const takes = [a, b, a, b, a].map((s) => s.rateBuckets.takeSync('c1:write', limit, 0).ok);
      expect(takes).toEqual([true, true, true, false, false]);
      expect(a.switches.setSync('global', true)).toBeUndefined();
      expect(b.switches.setSync('global', false)).toBe(true);
      b.credentials.insertSync({
        id: 'cr1',
        tokenHash: 'th',
        tenantIds: ['t1'],
        creatorId: 'p1',
        rights: [],
        clientLabel: 'cli',
        createdAt: 0,
        expiresAt: null,
        revokedAt: null,
      });
      expect(a.credentials.revokeSync('cr1', 5)).toBe(true);
      expect(b.credentials.revokeSync('cr1', 6)).toBe(false);
    });
  });

  it('fails closed after lockWaitMs, not the busy timeout, while another connection holds the write lock', async () => {
    await twoConnections(async (a, _b, temp) => {
      const impatient = temp.open(); // busy timeout 5,000: the stores must not wait in it
      const stores = createSqliteStores(impatient, { lockWaitMs: 50 });
      const holder = temp.open();
      holder.exec('BEGIN IMMEDIATE');
      const started = Date.now();
      await expect(stores.replay.begin('k', 'd', 5_000, 0)).rejects.toThrow(/locked|busy/i);
      await expect(stores.pendingActions.transition('pa1', ['pending'], 'claimed')).rejects.toThrow(
        /locked|busy/i,
      );
      await expect(stores.rateBuckets.take('k', { capacity: 1, refillPerSecond: 1 }, 0)).rejects.toThrow(
        /locked|busy/i,
      );
      expect(Date.now() - started).toBeLessThan(1_500);
      holder.exec('ROLLBACK');
      expect((await stores.replay.begin('k', 'd', 5_000, 0)).state).toBe('started');
      expect((await a.replay.begin('k', 'd', 5_000, 0)).state).toBe('running');
      expect(impatient.pragma('busy_timeout', { simple: true })).toBe(5_000);
    });
  });
});
