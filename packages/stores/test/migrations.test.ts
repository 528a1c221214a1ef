import { ConfigurationError } from '@gatehousejs/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  configureDatabase,
  GATEHOUSE_SCHEMA_VERSION,
  migrateGatehouseSchema,
  openDatabase,
  SqliteAuditStore,
  SqlitePendingActionStore,
  SqliteReplayStore,
} from '../src/index.js';
import { MIGRATIONS } from '../src/internal/schema.js';
import { pendingAction } from './fixtures/records.js';
import { tempDatabase } from './fixtures/tempDatabase.js';

const tables = (db: Database.Database): string[] =>
  db
    .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);

describe('migrateGatehouseSchema', () => {
  it('creates only gatehouse_ tables beside the host’s own, and records the version', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE bookings (id TEXT PRIMARY KEY)');
    expect(migrateGatehouseSchema(db, 42)).toEqual({
      from: 0,
      to: GATEHOUSE_SCHEMA_VERSION,
      applied: [1, 2, 3, 4, 5],
    });
    expect(tables(db)).toEqual([
      'bookings',
      'gatehouse_audit',
      'gatehouse_credentials',
      'gatehouse_migrations',
      'gatehouse_oauth_keys',
      'gatehouse_oauth_records',
      'gatehouse_pending_actions',
      'gatehouse_rate_buckets',
      'gatehouse_replay',
      'gatehouse_switches',
    ]);
    expect(db.prepare('SELECT version, name, applied_at FROM gatehouse_migrations').all()).toEqual([
      { version: 1, name: 'guard stores', applied_at: 42 },
      { version: 2, name: 'replay fencing tokens', applied_at: 42 },
      { version: 3, name: 'approval by a person', applied_at: 42 },
      { version: 4, name: 'pending action claim leases', applied_at: 42 },
      { version: 5, name: 'oauth authorization server', applied_at: 42 },
    ]);
    db.close();
  });

  it('applies nothing the second time, from this or another connection', () => {
    const temp = tempDatabase();
    try {
      const report = migrateGatehouseSchema(temp.open());
      expect(report).toEqual({ from: GATEHOUSE_SCHEMA_VERSION, to: GATEHOUSE_SCHEMA_VERSION, applied: [] });
      expect(migrateGatehouseSchema(temp.open()).applied).toEqual([]);
      const rows = temp.open().prepare('SELECT count(*) AS n FROM gatehouse_migrations').get();
      expect(rows).toEqual({ n: GATEHOUSE_SCHEMA_VERSION });
    } finally {
      temp.dispose();
    }
  });

  it('refuses a database written by a newer schema, and changes nothing', () => {
    const db = new Database(':memory:');
    migrateGatehouseSchema(db);
    db.prepare('INSERT INTO gatehouse_migrations (version, name, applied_at) VALUES (99, ?, 0)').run(
      'future',
    );
    let error: unknown;
    try {
      migrateGatehouseSchema(db);
    } catch (e) {
      error = e;
    }
    expect(ConfigurationError.is(error)).toBe(true);
    expect(String(error)).toMatch(/version 99/);
    expect(() => new SqliteReplayStore(db)).toThrow(/expected 5/);
    db.close();
  });

  it('upgrades a version 1 database in place: records kept, a claim from before the upgrade expires, new claims are fenced', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);
      ${MIGRATIONS[0]?.sql ?? ''}
      INSERT INTO gatehouse_migrations VALUES (1, 'guard stores', 0);
      INSERT INTO gatehouse_replay VALUES ('done', 'completed', 'd', '{"id":"b1"}', 60000);
      INSERT INTO gatehouse_replay VALUES ('old', 'running', 'd', NULL, 1000);`);
    expect(migrateGatehouseSchema(db, 7)).toEqual({ from: 1, to: 5, applied: [2, 3, 4, 5] });
    const replay = new SqliteReplayStore(db);
    expect(replay.beginSync('done', 'd', 1_000, 10)).toMatchObject({
      state: 'completed',
      result: { id: 'b1' },
    });
    // A call that claimed under version 1 has no fence: it cannot complete, and its lease frees the key.
    expect(replay.beginSync('old', 'd', 1_000, 10)).toEqual({ state: 'running', argumentsDigest: 'd' });
    expect(replay.completeSync('old', 'any', 'd', { id: 'b2' }, 60_000, 20)).toBe(false);
    expect(replay.beginSync('old', 'd', 1_000, 1_000)).toMatchObject({
      state: 'started',
      fence: expect.any(String),
    });
    db.close();
  });

  it('upgrades a version 2 database in place: a pending action from before reads back as a model action', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);
      ${MIGRATIONS[0]?.sql ?? ''}
      ${MIGRATIONS[1]?.sql ?? ''}
      INSERT INTO gatehouse_migrations VALUES (1, 'guard stores', 0), (2, 'replay fencing tokens', 0);
      INSERT INTO gatehouse_pending_actions VALUES ('pa1', 'h-pa1', 'c1', 't1', 'notify_customer',
        '{"booking_id":"b1"}', 'ad', 'ch', 's', 0, 60000, 'pending');`);
    expect(() => new SqlitePendingActionStore(db)).toThrow(/version 2, expected 5/);
    expect(migrateGatehouseSchema(db, 7)).toEqual({ from: 2, to: 5, applied: [3, 4, 5] });
    const store = new SqlitePendingActionStore(db);
    const before = pendingAction('pa1', { arguments: { booking_id: 'b1' } });
    expect(store.findByIdSync('pa1')).toStrictEqual(before);
    expect(store.findByTokenHashSync('h-pa1')).toStrictEqual(before);
    expect(
      db
        .prepare('SELECT approval, creator_id, result, decided_by, decided_at FROM gatehouse_pending_actions')
        .get(),
    ).toEqual({ approval: 'model', creator_id: null, result: null, decided_by: null, decided_at: null });
    expect(store.listAwaitingApprovalSync('t1', 0, 10)).toEqual([]);
    // The new columns take a person action beside the old row, and refuse an unknown approval mode.
    store.insertSync(pendingAction('pa2', { approval: 'person', creatorId: 'p1' }));
    expect(store.listAwaitingApprovalSync('t1', 0, 10).map((a) => a.id)).toEqual(['pa2']);
    expect(() => db.exec("UPDATE gatehouse_pending_actions SET approval = 'robot' WHERE id = 'pa1'")).toThrow(
      /CHECK/,
    );
    db.close();
  });

  it('upgrades a version 3 database in place: a claim from before has no lease, so it is taken over at once', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE gatehouse_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL);
      ${MIGRATIONS.slice(0, 3)
        .map((m) => m.sql)
        .join('\n')}
      INSERT INTO gatehouse_migrations VALUES (1, 'guard stores', 0), (2, 'replay fencing tokens', 0),
        (3, 'approval by a person', 0);
      INSERT INTO gatehouse_pending_actions (id, token_hash, connection_id, tenant_id, tool, arguments,
        arguments_digest, content_hash, summary, created_at, expires_at, status, approval, creator_id)
      VALUES ('pa1', 'h-pa1', 'c1', 't1', 'notify_customer', '{}', 'ad', 'ch', 's', 0, 60000, 'claimed',
        'person', 'p1');`);
    expect(() => new SqlitePendingActionStore(db)).toThrow(/version 3, expected 5/);
    expect(migrateGatehouseSchema(db, 7)).toEqual({ from: 3, to: 5, applied: [4, 5] });
    const store = new SqlitePendingActionStore(db);
    const before = pendingAction('pa1', { status: 'claimed', approval: 'person', creatorId: 'p1' });
    expect(store.findByIdSync('pa1')).toStrictEqual(before);
    expect(db.prepare('SELECT claim_fence, claim_expires_at FROM gatehouse_pending_actions').get()).toEqual({
      claim_fence: null,
      claim_expires_at: null,
    });
    // A claim written before the upgrade has no lease: it lapsed at once, so it is listed and claimable.
    expect(store.listAwaitingApprovalSync('t1', 0, 10)).toEqual([before]);
    expect(store.claimSync('pa1', ['pending'], { fence: 'f1', expiresAt: 500 }, 0)).toBe(true);
    expect(store.listAwaitingApprovalSync('t1', 0, 10)).toEqual([]);
    expect(store.findByIdSync('pa1')?.claimExpiresAt).toBe(500);
    db.close();
  });

  it('rolls a failed migration back completely, ledger included', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE gatehouse_replay (x)');
    expect(() => migrateGatehouseSchema(db)).toThrow(/already exists/);
    expect(tables(db)).toEqual(['gatehouse_replay']);
    db.close();
  });
});

describe('SqliteReplayStore', () => {
  it('refuses a database that was never migrated, naming the fix', () => {
    const db = new Database(':memory:');
    expect(() => new SqliteReplayStore(db)).toThrow(/Run migrateGatehouseSchema\(db\) first/);
    expect(() => new SqliteAuditStore(db)).toThrow(ConfigurationError);
    db.close();
  });
});

describe('openDatabase', () => {
  it('opens a file in WAL mode with a busy timeout and full sync', () => {
    const temp = tempDatabase();
    try {
      const db = openDatabase(temp.file, { busyTimeoutMs: 1_234 });
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('busy_timeout', { simple: true })).toBe(1_234);
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      db.close();
    } finally {
      temp.dispose();
    }
  });

  it('refuses a bad busy timeout or sync mode', () => {
    expect(() => openDatabase(':memory:', { busyTimeoutMs: -1 })).toThrow(ConfigurationError);
    expect(() => openDatabase(':memory:', { busyTimeoutMs: 1.5 })).toThrow(/non-negative integer/);
  });
});

describe('configureDatabase', () => {
  it('configures a handle the host opened, with normal sync on request', () => {
    const db = configureDatabase(new Database(':memory:'), { synchronous: 'normal' });
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5_000);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    db.close();
  });
});
