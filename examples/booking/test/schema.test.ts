import { openDatabase } from '@gatehousejs/stores';
import { describe, expect, it } from 'vitest';
import { migrateProductSchema, PRODUCT_SCHEMA_VERSION } from '../src/db/schema.js';

describe('migrateProductSchema', () => {
  it('adds the customer revision counter to a database of schema 1, starting existing rows at 1', () => {
    const db = openDatabase(':memory:');
    try {
      migrateProductSchema(db, 0);
      db.exec(`ALTER TABLE customers DROP COLUMN revision;
        DROP TABLE oauth_payloads; DROP TABLE oauth_keys; DROP TABLE memberships;
        DELETE FROM booking_migrations WHERE version > 1;
        INSERT INTO workspaces (id, name, zone, currency, created_at) VALUES ('ws', 'W', 'UTC', 'EUR', 0);
        INSERT INTO customers (id, workspace_id, name, email, created_at) VALUES ('cu', 'ws', 'Ada', 'a@x', 0);`);
      expect(migrateProductSchema(db, 1)).toEqual([2, 3, 4]);
      expect(db.prepare('SELECT revision FROM customers').all()).toEqual([{ revision: 1 }]);
      expect(migrateProductSchema(db, 2)).toEqual([]);
      expect(PRODUCT_SCHEMA_VERSION).toBe(4);
    } finally {
      db.close();
    }
  });
});
