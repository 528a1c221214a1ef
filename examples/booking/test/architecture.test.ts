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

describe('src/services and src/domain', () => {
  it('throw the domain’s own errors: no tool error, no MCP import; the adapters map them', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const offending: string[] = [];
    for (const folder of ['src/services', 'src/domain']) {
      for (const name of await readdir(new URL(`../${folder}/`, import.meta.url))) {
        const text = await readFile(new URL(`../${folder}/${name}`, import.meta.url), 'utf8');
        if (/\bToolError\b|@modelcontextprotocol\//.test(text)) offending.push(`${folder}/${name}`);
      }
    }
    expect(offending).toEqual([]);
  });
});
