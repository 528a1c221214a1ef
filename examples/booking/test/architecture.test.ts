import { fileURLToPath } from 'node:url';
import {
  expectToolArchitecture,
  forbidModule,
  PERSISTENCE_RULES,
  scanToolSources,
} from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The product's own persistence and current-user modules, beyond the kit's generic rules. */
const DB_MODULES = forbidModule('I1', /(^|\/)db\/[^/]+\.js$/);
const BOOKING_PERSISTENCE = [
  ...PERSISTENCE_RULES,
  DB_MODULES,
  forbidModule('I1', '@gatehousejs/stores'),
  forbidModule('I1', /(^|\/)ports\/[^/]+\.js$/),
  forbidModule('I1', /(^|\/)api\/[^/]+\.js$/),
];

describe('src/mcp/tools', () => {
  it('calls the services only: no persistence, no ports, no REST handlers, no current user (I1, I2)', async () => {
    await expectToolArchitecture({ root, files: ['src/mcp/tools'], persistence: BOOKING_PERSISTENCE });
  });

  it('would be caught reaching the database from a tool', async () => {
    const findings = await scanToolSources({
      root,
      files: ['test/fixtures/leakyTool.ts'],
      persistence: BOOKING_PERSISTENCE,
    });
    expect(findings.map((f) => f.rule)).toEqual(
      expect.arrayContaining([
        'imports better-sqlite3',
        DB_MODULES.name,
        'prepares SQL (db.prepare)',
        'reads a current user (currentUser)',
      ]),
    );
  });
});
