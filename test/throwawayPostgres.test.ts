import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { answers } from '../packages/stores/test/fixtures/postgres.js';
import { startThrowawayPostgres, throwawayPostgresAvailable } from './throwawayPostgres.js';

/** Connects a client to `url` as `applicationName`; errors of a lost connection are collected, not thrown. */
async function connect(url: string, applicationName = 'throwaway-test') {
  const errors: Error[] = [];
  const client = new pg.Client({ connectionString: url, application_name: applicationName });
  client.on('error', (error) => errors.push(error));
  await client.connect();
  return { client, errors };
}

describe.skipIf(!throwawayPostgresAvailable())('startThrowawayPostgres', () => {
  it('starts a PostgreSQL 15 cluster of its own on a loopback port within a few seconds', async () => {
    const started = Date.now();
    await using postgres = await startThrowawayPostgres();
    // About a second on an idle machine; the bound leaves room for a busy one.
    expect((Date.now() - started) / 1000).toBeLessThan(10);
    expect(postgres!.url).toBe(`postgres://postgres@127.0.0.1:${postgres!.port}/postgres`);
    expect(postgres!.port).not.toBe(5432);
    const { client } = await connect(postgres!.url);
    try {
      const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
      expect(rows[0]?.server_version).toMatch(/^15\./);
    } finally {
      await client.end();
    }
  });

  it('stops and starts again on the same port, each twice in a row without failing', async () => {
    await using postgres = await startThrowawayPostgres();
    const { url } = postgres!;
    await postgres!.stop();
    await postgres!.stop();
    expect(postgres!.running).toBe(false);
    expect(await answers(url)).toBe(false);
    await postgres!.start();
    await postgres!.start();
    expect(postgres!.running).toBe(true);
    expect(await answers(url)).toBe(true);
    await postgres!.stop('immediate');
    expect(await answers(url)).toBe(false);
    await postgres!.start();
    expect(await answers(url)).toBe(true);
  });

  it('keeps what was committed across a fast stop', async () => {
    await using postgres = await startThrowawayPostgres();
    const first = await connect(postgres!.url);
    await first.client.query('CREATE TABLE kept (n int)');
    await first.client.query('INSERT INTO kept VALUES (7)');
    await first.client.end();
    await postgres!.stop('fast');
    await postgres!.start();
    const second = await connect(postgres!.url);
    try {
      const { rows } = await second.client.query<{ n: number }>('SELECT n FROM kept');
      expect(rows).toEqual([{ n: 7 }]);
    } finally {
      await second.client.end();
    }
  });

  it('terminates the connections of one application name only, with 57P01', async () => {
    await using postgres = await startThrowawayPostgres();
    const victim = await connect(postgres!.url, 'victim');
    const bystander = await connect(postgres!.url, 'bystander');
    try {
      expect(await postgres!.terminateConnections({ applicationName: 'victim' })).toBe(1);
      await expect(victim.client.query('SELECT 1')).rejects.toThrow();
      await expect
        .poll(() => victim.errors.map((error) => (error as { code?: string }).code))
        .toContain('57P01');
      expect((await bystander.client.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      expect(await postgres!.terminateConnections({ database: 'postgres' })).toBe(1);
      expect(await postgres!.terminateConnections()).toBe(0);
    } finally {
      await victim.client.end().catch(() => undefined);
      await bystander.client.end().catch(() => undefined);
    }
  });

  it('removes its folder and stops answering on dispose; a second dispose does nothing', async () => {
    const postgres = (await startThrowawayPostgres())!;
    expect(existsSync(postgres.folder)).toBe(true);
    await postgres.dispose();
    await postgres.dispose();
    expect(existsSync(postgres.folder)).toBe(false);
    expect(await answers(postgres.url)).toBe(false);
    await expect(postgres.start()).rejects.toThrow(/disposed/);
  });
});
