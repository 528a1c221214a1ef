import { readFileSync } from 'node:fs';
import { type Connection, REPLAY_NOTE } from '@gatehousejs/core';
import { createSqliteStores } from '@gatehousejs/stores';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import * as guards from '../src/index.js';
import { bookingProduct } from './examples/bookingTools.js';
import { sqliteServer } from './examples/sqliteServer.js';
import { tunedServer } from './examples/tunedServer.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The pages this package documents; every TypeScript block on them is quoted from compiled code. */
const PAGES = [
  '../README.md',
  '../../../docs/guards.md',
  '../../../docs/writes/replay.md',
  '../../../docs/writes/duplicates.md',
  '../../../docs/writes/batches.md',
  '../../../docs/access/rate-limits.md',
];
const SOURCES = [
  './examples/bookingTools.ts',
  './examples/memoryServer.ts',
  './examples/sqliteServer.ts',
  './examples/tunedServer.ts',
  './examples/ownGuards.ts',
  './kindSuites.test.ts',
];

/** Lines without their indentation or region markers, so an indented excerpt (or one around a nested quoted region) matches its source. */
const unindent = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => !/^\/\/ #(end)?region [\w-]+$/.test(line))
    .join('\n')
    .trim();
const tsBlocks = (markdown: string) =>
  [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
const sources = SOURCES.map((path) => unindent(read(path)));
const quoted = (snippet: string) => sources.some((source) => source.includes(unindent(snippet)));

const connection = (
  tenantId: string,
): Connection<'bookings.read' | 'bookings.write' | 'customers.notify'> => ({
  connectionId: `conn_${tenantId}`,
  tenantId,
  creatorId: 'p1',
  clientName: 'docs',
  channel: 'mcp',
  rights: new Set(['bookings.read', 'bookings.write', 'customers.notify']),
});
const writer: Connection<'notes.write'> = {
  connectionId: 'conn_ws_1',
  tenantId: 'ws_1',
  creatorId: 'p1',
  clientName: 'docs',
  channel: 'mcp',
  rights: new Set(['notes.write']),
};
const ADA = { customer_id: 'cu_ada', start: '2030-05-04T09:00:00+02:00' };

describe('guard docs', () => {
  it('show only TypeScript copied from compiled, tested files', () => {
    for (const page of PAGES) {
      for (const snippet of tsBlocks(read(page))) expect(quoted(snippet), `${page}:\n${snippet}`).toBe(true);
    }
    const versions = tsBlocks(read('../../../docs/writes/versions.md')).filter((s) => s.includes('Guard'));
    expect(versions).toHaveLength(1);
    for (const snippet of versions) expect(quoted(snippet), snippet).toBe(true);
  });

  it('name every export of the package in its README, and show no removed API in any code block', () => {
    const readme = read('../README.md');
    for (const name of Object.keys(guards)) expect(readme, name).toContain(`\`${name}\``);
    for (const page of PAGES) {
      for (const snippet of tsBlocks(read(page)))
        expect(snippet, page).not.toMatch(
          /batchGuard|stage: '|creates: \{|onInternalError|checkGate|switches\.guard|handle\(/,
        );
    }
  });

  it('quote the replay note as core writes it', () => {
    expect(read('../../../docs/writes/replay.md')).toContain(JSON.stringify(REPLAY_NOTE));
  });

  it('run the README server: a stale version and a miscounted filter change nothing, a re-sent update is replayed', async () => {
    const { server, audit, notes } = await import('./examples/memoryServer.js');
    const call = (tool: string, args: Record<string, unknown>, requestId = 1) =>
      server.callTool(writer, tool, args, { requestId }).then((r) => r.structuredContent);
    const stale = await call('update_note', { id: 'n1', version: 'stale', text: 'Call Ada at 9' });
    expect(stale).toMatchObject({
      error: { code: 'conflict', details: { current: { id: 'n1', text: 'Call Ada' } } },
    });
    expect(await call('pin_notes', { filter: { contains: 'Call' }, expected_count: 1 })).toMatchObject({
      error: { code: 'batch_count_mismatch', details: { total: 2 } },
    });
    expect(notes.map((n) => [n.text, n.pinned, n.revision])).toEqual([
      ['Call Ada', false, 1],
      ['Call Bob', false, 1],
    ]);
    const version = (stale.error as { details: { current_version: string } }).details.current_version;
    const update = { id: 'n1', version, text: 'Call Ada at 9' };
    const first = await call('update_note', update, 1);
    expect(first).toMatchObject({ status: 'ok', result: { text: 'Call Ada at 9' } });
    expect(await call('update_note', update, 2)).toEqual({
      ...first,
      replayed: true,
      replay_note: REPLAY_NOTE,
    });
    expect(notes[0]).toMatchObject({ text: 'Call Ada at 9', revision: 2 });
    expect(await call('pin_notes', { filter: { contains: 'Ada' }, expected_count: 1 })).toMatchObject({
      status: 'ok',
      result: { notes: [{ id: 'n1', pinned: true }] },
    });
    expect(notes.map((n) => n.pinned)).toEqual([true, false]);
    expect(audit.rows.map((r) => [r.action, r.objectIds])).toEqual([
      ['update_note', ['n1']],
      ['pin_notes', ['n1']],
    ]);
  });

  it('run the SQLite server of the guards page: a re-sent create is replayed, one booking, one audit row', async () => {
    const db = new Database(':memory:');
    try {
      const stores = createSqliteStores(db);
      const product = bookingProduct();
      const { authenticate } = product;
      const { server } = sqliteServer(product, stores, { authenticate });
      await server.callTool(connection('t1'), 'create_booking', ADA);
      const again = await server.callTool(connection('t1'), 'create_booking', ADA);
      expect(again.structuredContent).toMatchObject({ replayed: true });
      expect(product.rows).toHaveLength(1);
      expect((await stores.audit.list({ limit: 10 })).map((r) => r.action)).toEqual(['create_booking']);
      expect(await server.admit({ transport: 'http' })).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('run the replay and rate options of their pages, and the guards of the write pages', async () => {
    const { server, rows, mails } = tunedServer();
    const call = (tool: string, args: Record<string, unknown>) =>
      server.callTool(connection('t1'), tool, args).then((r) => r.structuredContent);
    await call('create_booking', ADA);
    expect(await call('create_booking', { ...ADA, idempotency_key: 'ada-0504' })).toMatchObject({
      error: { code: 'duplicate', details: { existing_id: 'bk_1', update_tool: 'update_booking' } },
    });
    const separate = { ...ADA, separate: true, reason: 'second room', idempotency_key: 'ada-0504' };
    expect(await call('create_booking', separate)).toMatchObject({
      status: 'ok',
      result: { booking: { id: 'bk_2' } },
    });
    expect(await call('create_booking', separate)).toMatchObject({ replayed: true });
    expect(rows).toHaveLength(2);
    const past = await call('update_booking', { id: 'bk_1', version: 'any', start: '2020-05-05T09:00:00Z' });
    expect(past).toMatchObject({
      error: { code: 'invalid_arguments', message: expect.stringContaining('passed') },
    });
    const stale = await call('update_booking', {
      id: 'bk_1',
      version: 'stale',
      start: '2030-05-05T09:00:00Z',
    });
    expect(stale).toMatchObject({ error: { code: 'conflict', details: { current: { id: 'bk_1' } } } });
    const batch = await call('reschedule_bookings', {
      filter: { customer_id: 'cu_ada' },
      expected_count: 1,
      start: '2030-06-01T09:00:00Z',
    });
    expect(batch).toMatchObject({ error: { code: 'batch_count_mismatch', details: { total: 2 } } });
    expect(rows.map((b) => b.start)).toEqual([ADA.start, ADA.start]);
    rows[0]!.start = '2020-01-01T09:00:00Z';
    const found = await call('find_bookings', { customer_id: 'cu_ada' });
    const current = (found.result as { bookings: { version: string }[] }).bookings[0]!.version;
    expect(
      await call('update_booking', { id: 'bk_1', version: current, start: '2030-05-05T09:00:00Z' }),
    ).toMatchObject({
      error: { code: 'conflict', message: expect.stringContaining('has started') },
    });
    expect(mails).toEqual([]);
  });
});
