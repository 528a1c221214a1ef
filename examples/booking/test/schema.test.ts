import { migrateGatehouseSchema, openDatabase, SqliteAuthorizationStore } from '@gatehousejs/stores';
import { describe, expect, it } from 'vitest';
import { migrateProductSchema, PRODUCT_SCHEMA_VERSION } from '../src/db/schema.js';

describe('migrateProductSchema', () => {
  it('adds the customer revision counter to a database of schema 1, starting existing rows at 1', () => {
    const db = openDatabase(':memory:');
    try {
      migrateGatehouseSchema(db); // the product's migrations run after the Gatehouse stores'
      migrateProductSchema(db, 0);
      db.exec(`ALTER TABLE customers DROP COLUMN revision;
        DROP TABLE memberships;
        DELETE FROM booking_migrations WHERE version > 1;
        INSERT INTO workspaces (id, name, zone, currency, created_at) VALUES ('ws', 'W', 'UTC', 'EUR', 0);
        INSERT INTO customers (id, workspace_id, name, email, created_at) VALUES ('cu', 'ws', 'Ada', 'a@x', 0);`);
      expect(migrateProductSchema(db, 1)).toEqual([2, 3, 4, 5, 6]);
      expect(db.prepare('SELECT revision FROM customers').all()).toEqual([{ revision: 1 }]);
      expect(migrateProductSchema(db, 2)).toEqual([]);
      expect(PRODUCT_SCHEMA_VERSION).toBe(6);
    } finally {
      db.close();
    }
  });

  it('moves the authorization server’s records and keys of a version 4 database into the Gatehouse tables, losing none', async () => {
    const db = openDatabase(':memory:');
    try {
      migrateGatehouseSchema(db);
      migrateProductSchema(db, 0);
      // a database as version 4 left it: the provider's rows in the product's own tables
      db.exec(`DELETE FROM booking_migrations WHERE version > 4;
        CREATE TABLE oauth_payloads (model TEXT NOT NULL, id TEXT NOT NULL, payload TEXT NOT NULL, grant_id TEXT,
          uid TEXT, user_code TEXT, expires_at INTEGER, consumed_at INTEGER, PRIMARY KEY (model, id));
        CREATE TABLE oauth_keys (name TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL);
        INSERT INTO oauth_payloads VALUES ('RefreshToken', 'r1', '{"grantId":"g1"}', 'g1', NULL, NULL, 5000, 3000);
        INSERT INTO oauth_payloads VALUES ('Client', 'desk-app', '{"client_name":"Desk"}', NULL, NULL, NULL, NULL, NULL);
        INSERT INTO oauth_keys VALUES ('jwks', '{"keys":[]}', 7);`);
      expect(migrateProductSchema(db, 1)).toEqual([5, 6]);
      const store = new SqliteAuthorizationStore(db);
      expect(await store.find('RefreshToken', 'id', 'r1', 4000)).toEqual({
        id: 'r1',
        payload: '{"grantId":"g1"}',
        grantId: 'g1',
        expiresAt: 5000,
        consumedAt: 3000,
      });
      expect((await store.list('Client', 0)).map((r) => r.id)).toEqual(['desk-app']);
      expect(await store.keyOf('jwks', () => 'new', 0)).toBe('{"keys":[]}');
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'oauth_%'")
        .all();
      expect(tables).toEqual([]);
    } finally {
      db.close();
    }
  });
});
