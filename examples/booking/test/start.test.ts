import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type BookingApp, createBookingApp } from '../src/app.js';
import { DEMO_TOKEN_LABEL, type DemoToken, rotateDemoToken } from '../src/demoToken.js';
import { serveHttp } from '../src/httpServer.js';
import { demoTokenRows, expectLastRotationLive, rotationOrder } from './fixtures/demoRotations.js';
import { postgresAvailable, postgresTestDatabase } from './fixtures/postgres.js';
import { rawClient } from './fixtures/raw.js';

const postgres = await postgresAvailable();

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function databaseFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'booking-start-'));
  dirs.push(dir);
  return join(dir, 'booking.db');
}

/** What `npm start` does to the database: open (seeding an empty one), then replace the demo token. */
async function start(file: string): Promise<{ app: BookingApp; demo: DemoToken }> {
  const app = await createBookingApp({ file, logger: pino({ level: 'silent' }) });
  return { app, demo: await rotateDemoToken(app) };
}

interface AuditLine {
  readonly channel: string;
  readonly action: string;
  readonly object_ids: string;
}

/** The SQLite handle of an app these tests opened on a file. */
function sqliteOf(app: BookingApp) {
  if (app.database.engine !== 'sqlite') throw new Error('these tests read the SQLite file');
  return app.database.db;
}

const revokeRows = (app: BookingApp): AuditLine[] =>
  sqliteOf(app)
    .prepare(
      "SELECT channel, action, object_ids FROM gatehouse_audit WHERE action = 'token.revoke' ORDER BY id",
    )
    .all() as AuditLine[];

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The database file and its journal files, as bytes on disk. */
const onDisk = (file: string): string =>
  [file, `${file}-wal`, `${file}-journal`]
    .filter((path) => existsSync(path))
    .map((path) => readFileSync(path).toString('latin1'))
    .join('');

describe('rotateDemoToken', () => {
  it('revokes the previous demo token on the next start: the first answers 401, the second is served', async () => {
    const file = databaseFile();
    const first = await start(file);
    await first.app.close();
    const second = await start(file);
    try {
      expect(second.demo.revoked).toEqual([first.demo.credential.id]);
      await using serving = await serveHttp(second.app, { port: 0 });
      expect((await rawClient(serving.mcpUrl, first.demo.token).listTools()).status).toBe(401);
      const served = await rawClient(serving.mcpUrl, second.demo.token).listTools();
      expect(served.status).toBe(200);
      expect(JSON.stringify(served.result)).toContain('create_booking');
    } finally {
      await second.app.close();
    }
  });

  it('writes one token.revoke audit row (channel cli) per revoked demo token, and leaves one live', async () => {
    const file = databaseFile();
    const starts: DemoToken[] = [];
    for (let i = 0; i < 3; i++) {
      const { app, demo } = await start(file);
      starts.push(demo);
      await app.close();
    }
    const { app } = await start(file);
    try {
      const ids = starts.map((demo) => demo.credential.id);
      expect(revokeRows(app)).toEqual(
        ids.map((id) => ({ channel: 'cli', action: 'token.revoke', object_ids: JSON.stringify([id]) })),
      );
      const live = sqliteOf(app)
        .prepare(
          'SELECT count(*) AS n FROM gatehouse_credentials WHERE client_label = ? AND revoked_at IS NULL',
        )
        .get(DEMO_TOKEN_LABEL) as { n: number };
      expect(live.n).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('stores only the hash of each demo token: the clear token is nowhere in the database file', async () => {
    const file = databaseFile();
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { app, demo } = await start(file);
      tokens.push(demo.token);
      const stored = sqliteOf(app)
        .prepare('SELECT token_hash FROM gatehouse_credentials WHERE id = ?')
        .get(demo.credential.id) as { token_hash: string };
      expect(stored.token_hash).toBe(sha256(demo.token));
      await app.close();
    }
    const bytes = onDisk(file);
    expect(bytes).toContain(sha256(tokens[0] ?? ''));
    for (const token of tokens) {
      expect(token.length).toBeGreaterThan(20);
      expect(bytes).not.toContain(token);
      expect(bytes).not.toContain(token.slice(-16));
    }
  });
});

describe('rotateDemoToken at once', () => {
  const APPS = 4;
  const silent = pino({ level: 'silent' });

  /** Opens `APPS` apps at once on one empty database (separate connections), then rotates on all at once. */
  async function rotateAtOnce(open: () => Promise<BookingApp>): Promise<void> {
    const apps = await Promise.all(Array.from({ length: APPS }, open));
    try {
      expect(apps.filter((app) => app.seeded)).toHaveLength(1);
      const demos = await Promise.all(apps.map((app) => rotateDemoToken(app)));
      const order = rotationOrder(
        demos.map((demo) => ({ credentialId: demo.credential.id, revoked: demo.revoked })),
      );
      expectLastRotationLive(await demoTokenRows(apps[0]!), order);
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  }

  it('serialises the rotations of several apps on one SQLite file: one demo token live, the last one minted', () => {
    const file = databaseFile();
    return rotateAtOnce(() => createBookingApp({ file, logger: silent }));
  });

  it.skipIf(!postgres)(
    'serialises the rotations of several apps on one PostgreSQL database: one demo token live, the last one minted',
    async () => {
      const database = await postgresTestDatabase();
      try {
        await rotateAtOnce(() => createBookingApp({ databaseUrl: database.url, logger: silent }));
      } finally {
        await database.drop();
      }
    },
  );

  it('changes nothing when the mint fails: the earlier demo token stays live, no revocation is audited', async () => {
    const file = databaseFile();
    const { app, demo } = await start(file);
    try {
      const failing: BookingApp = {
        ...app,
        credentialsIn: (handle) => ({
          ...app.credentialsIn(handle),
          mint: async () => {
            throw new Error('the mint failed');
          },
        }),
      };
      await expect(rotateDemoToken(failing)).rejects.toThrow('the mint failed');
      expect(await demoTokenRows(app)).toEqual({
        minted: [demo.credential.id],
        live: [demo.credential.id],
        revokes: [],
      });
    } finally {
      await app.close();
    }
  });
});
