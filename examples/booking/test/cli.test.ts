import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256Hex } from '@gatehousejs/core';
import { CompiledQuery } from 'kysely';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type BookingApp, createBookingApp } from '../src/app.js';
import { runCli } from '../src/cli/run.js';

/** A temp database file and a CLI runner that captures stdout and stderr. */
function cliFixture() {
  const dir = mkdtempSync(join(tmpdir(), 'booking-cli-'));
  const file = join(dir, 'booking.db');
  const run = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const io = {
      out: (text: string) => {
        out += text;
      },
      err: (text: string) => {
        err += text;
      },
    };
    const code = await runCli(argv, { file, io, logger: pino({ level: 'silent' }) });
    return { code, out, err };
  };
  /** Opens the same file as another process would, runs `fn`, closes it. */
  const inspect = async <T>(fn: (app: BookingApp) => T | Promise<T>): Promise<T> => {
    const app = await createBookingApp({ file, seed: false, logger: pino({ level: 'silent' }) });
    try {
      return await fn(app);
    } finally {
      await app.close();
    }
  };
  const count = (sql: string, ...params: unknown[]) =>
    inspect(async (app) => {
      const { rows } = await app.database.kysely.executeQuery<{ n: number }>(CompiledQuery.raw(sql, params));
      return Number(rows[0]?.n);
    });
  return { run, inspect, count, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

const tokenIn = (out: string) => /token {4}(ghmcp_\S+)/.exec(out)?.[1] ?? '';
const idIn = (out: string) => /id {7}(cred_\S+)/.exec(out)?.[1] ?? '';

describe('runCli', () => {
  it('seeds an empty database once', async () => {
    using cli = cliFixture();
    expect(await cli.run('seed')).toMatchObject({ code: 0, out: expect.stringContaining('Seeded') });
    expect(await cli.run('seed')).toMatchObject({ code: 0, out: expect.stringContaining('nothing changed') });
    expect(await cli.count('SELECT count(*) AS n FROM workspaces')).toBe(2);
  });

  it('creates an MCP token shown once, stored hashed, with the rights and toolset asked for, audited with channel cli', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const created = await cli.run(
      'token',
      'create',
      '--workspace',
      'ws_acme',
      '--person',
      'p_dan',
      '--rights',
      'customers.read,bookings.read',
      '--label',
      'Claude on Dan’s laptop',
      '--toolset',
      'compact',
    );
    expect(created.code).toBe(0);
    const token = tokenIn(created.out);
    expect(token).toMatch(/^ghmcp_/);
    expect(
      await cli.count(
        'SELECT count(*) AS n FROM gatehouse_credentials WHERE token_hash = ?',
        sha256Hex(token),
      ),
    ).toBe(1);
    expect(
      await cli.count(
        "SELECT count(*) AS n FROM gatehouse_credentials WHERE token_hash = ? OR rights LIKE '%write%'",
        token,
      ),
    ).toBe(0);
    expect(
      await cli.count(
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'token.create' AND channel = 'cli'",
      ),
    ).toBe(1);
    const decision = await cli.inspect((app) => app.credentials.authenticate({ token }));
    expect(decision.ok && decision.connection.toolset).toBe('compact');
    expect(decision.ok && [...decision.connection.rights].sort()).toEqual([
      'bookings.read',
      'customers.read',
    ]);
  });

  it('refuses bad input with exit code 2 and one Error line, never a stack trace', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const bad: string[][] = [
      [],
      ['book', 'everything'],
      ['token', 'create', '--workspace', 'ws_acme', '--person', 'p_dan'],
      ['token', 'create', '--workspace', 'ws_acme', '--person', 'p_dan', '--rights', 'bookings.fly'],
      ['token', 'create', '--workspace', 'ws_nope', '--person', 'p_dan', '--rights', 'bookings.read'],
      ['token', 'create', '--workspace', 'ws_globex', '--person', 'p_dan', '--rights', 'bookings.read'],
      ['token', 'create', '--workspace', 'ws_acme', '--person', 'p_vera', '--rights', 'bookings.write'],
      [
        'token',
        'create',
        '--workspace',
        'ws_acme',
        '--person',
        'p_dan',
        '--rights',
        'bookings.read',
        '--toolset',
        'tiny',
      ],
      [
        'token',
        'create',
        '--workspace',
        'ws_acme',
        '--person',
        'p_dan',
        '--rights',
        'bookings.read',
        '--colour',
        'red',
      ],
      ['token', 'revoke', 'cred_unknown'],
      ['person', 'role', 'ws_acme', 'p_dan', 'king'],
      ['person', 'deactivate', 'ws_acme'],
      ['switch', 'global', 'maybe'],
      ['switch', 'workspace', 'ws_nope', 'off'],
    ];
    for (const argv of bad) {
      const result = await cli.run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(/^Error: /);
      expect(result.err).not.toMatch(/\n\s+at /);
      expect(result.out).toBe('');
    }
    expect(await cli.count('SELECT count(*) AS n FROM gatehouse_credentials')).toBe(0);
    expect(await cli.count("SELECT count(*) AS n FROM people WHERE role = 'dispatcher' AND active = 1")).toBe(
      1,
    );
  });

  it('names the flag in each parse error: unknown, without a value, empty, followed by a flag, given twice', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const create = ['token', 'create', '--workspace', 'ws_acme', '--person', 'p_dan'];
    const cases: [string[], RegExp][] = [
      [
        [...create, '--rights', 'bookings.read', '--colour', 'red'],
        /^Error: Unknown option --colour\. Allowed: --workspace, --person, --rights, /,
      ],
      [[...create, '--rights', 'bookings.read', '-x'], /^Error: Unknown option -x\./],
      [
        ['switch', 'global', 'on', '--force'],
        /^Error: Unknown option --force\. This command takes no options\./,
      ],
      [[...create, '--rights'], /^Error: --rights needs a value/],
      [[...create, '--rights='], /^Error: --rights needs a value/],
      [
        ['token', 'create', '--workspace', '--person', 'p_dan', '--rights', 'bookings.read'],
        /^Error: --workspace needs a value/,
      ],
      [
        [...create, '--rights', 'bookings.read', '--rights', 'bookings.write'],
        /^Error: --rights is given more than once\./,
      ],
      [
        [...create, '--rights', 'bookings.read', 'extra'],
        /^Error: Expected no values, got 1 value\(s\): extra\./,
      ],
      [['token', 'revoke'], /^Error: Expected <id>, got 0 value\(s\)\./],
      [['token', 'revoke', '--help=yes'], /^Error: --help takes no value\./],
      [['token'], /^Error: unknown command "token"\./],
    ];
    for (const [argv, message] of cases) {
      const result = await cli.run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.err, argv.join(' ')).toMatch(message);
      expect(result.err, argv.join(' ')).toContain('Usage:');
      expect(result.out).toBe('');
    }
    expect(await cli.count('SELECT count(*) AS n FROM gatehouse_credentials')).toBe(0);
  });

  it('accepts --flag=value and -- before positionals, as parseArgs does', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const created = await cli.run(
      'token',
      'create',
      '--workspace=ws_acme',
      '--person=p_dan',
      '--rights=bookings.read,customers.read',
      '--label',
      'CI bot',
    );
    expect(created.code, created.err).toBe(0);
    const id = idIn(created.out);
    const label = await cli.inspect((app) => app.credentialStore.findById(id));
    expect(label?.clientLabel).toBe('CI bot');
    expect(label?.rights).toEqual(['bookings.read', 'customers.read']);
    expect(await cli.run('token', 'revoke', '--', id)).toMatchObject({ code: 0 });
    expect((await cli.inspect((app) => app.credentialStore.findById(id)))?.revokedAt).not.toBeNull();
  });

  it('prints the usage for help, --help and a command’s --help, with exit code 0 and no change', async () => {
    using cli = cliFixture();
    for (const argv of [['help'], ['--help'], ['-h']]) {
      const result = await cli.run(...argv);
      expect(result).toMatchObject({ code: 0, err: '' });
      for (const line of [
        'token create --workspace W --person P --rights r1,r2',
        'token revoke <id>',
        'switch global on|off',
        'seed',
      ]) {
        expect(result.out).toContain(line);
      }
    }
    await cli.run('seed');
    const full = ['--workspace', 'ws_acme', '--person', 'p_dan', '--rights', 'bookings.read'];
    const command = await cli.run('token', 'create', ...full, '--help');
    expect(command).toMatchObject({ code: 0, err: '' });
    expect(command.out).toBe(
      'Usage: npm run booking -- token create --workspace W --person P --rights r1,r2 [--label L] [--toolset compact] [--expires-days N]\n',
    );
    expect(await cli.count('SELECT count(*) AS n FROM gatehouse_credentials')).toBe(0);
  });

  it('revokes tokens and changes roles and activity, each audited with channel cli', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const created = await cli.run(
      'token',
      'create',
      '--workspace',
      'ws_acme',
      '--person',
      'p_dan',
      '--rights',
      'bookings.write',
    );
    const token = tokenIn(created.out);
    expect(await cli.run('person', 'role', 'ws_acme', 'p_dan', 'viewer')).toMatchObject({ code: 0 });
    const cut = await cli.inspect((app) => app.credentials.authenticate({ token }));
    expect(cut.ok && [...cut.connection.rights]).toEqual([]);
    expect(await cli.run('token', 'revoke', idIn(created.out))).toMatchObject({
      code: 0,
      out: expect.stringContaining('Revoked'),
    });
    expect((await cli.inspect((app) => app.credentials.authenticate({ token }))).ok).toBe(false);
    expect(await cli.run('person', 'deactivate', 'ws_acme', 'p_vera')).toMatchObject({ code: 0 });
    expect(await cli.count("SELECT count(*) AS n FROM people WHERE id = 'p_vera' AND active = 0")).toBe(1);
    const audited =
      "SELECT count(*) AS n FROM gatehouse_audit WHERE channel = 'cli' AND action IN ('person.role', 'token.revoke', 'person.deactivate')";
    expect(await cli.count(audited)).toBe(3);
  });

  it('flips the global kill switch and a workspace’s agent access, audited with channel cli', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    expect(await cli.run('switch', 'global', 'on')).toMatchObject({
      code: 0,
      out: expect.stringContaining('503'),
    });
    expect(await cli.run('switch', 'workspace', 'ws_globex', 'off')).toMatchObject({ code: 0 });
    const state = await cli.inspect(async (app) => [
      await app.switches.isGlobalOn(),
      await app.switches.tenantAccess('ws_globex'),
    ]);
    expect(state).toEqual([true, false]);
    expect(
      await cli.count(
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'switch.set' AND channel = 'cli'",
      ),
    ).toBe(2);
  });

  it('sets a new staff password, shown once, that signs in', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const result = await cli.run('person', 'password', 'ws_acme', 'p_olivia');
    const password = /\(shown once\): (\S+)/.exec(result.out)?.[1] ?? '';
    expect(password.length).toBeGreaterThan(10);
    expect(
      await cli.inspect(
        async (app) => (await app.apiAccess.login('olivia@acme.example', password)) !== undefined,
      ),
    ).toBe(true);
  });
  it('adds, lists and removes a pre-registered OAuth client, each audited with channel cli', async () => {
    using cli = cliFixture();
    await cli.run('seed');
    const added = await cli.run(
      'oauth-client',
      'add',
      '--id',
      'desk-app',
      '--name',
      'Desk App',
      '--redirect-uris',
      'http://127.0.0.1/callback',
    );
    expect(added).toMatchObject({ code: 0, err: '' });
    expect((await cli.run('oauth-client', 'list')).out).toBe(
      'desk-app\tDesk App\thttp://127.0.0.1/callback\n',
    );
    const bad = await cli.run(
      'oauth-client',
      'add',
      '--id',
      'x',
      '--name',
      'X',
      '--redirect-uris',
      'https://u:p@a.example/cb',
    );
    expect(bad.code).toBe(2);
    expect(bad.err).not.toContain('u:p@');
    const removed = await cli.run('oauth-client', 'remove', 'desk-app');
    expect(removed).toMatchObject({
      code: 0,
      out: expect.stringContaining('Removed desk-app and revoked its 0 grants'),
    });
    const again = await cli.run('oauth-client', 'remove', 'desk-app');
    expect(again).toMatchObject({
      code: 2,
      err: expect.stringContaining('There is no registered OAuth client desk-app'),
    });
    expect((await cli.run('oauth-client', 'list')).out).toContain('No registered OAuth clients');
    expect(
      await cli.count(
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action LIKE 'oauth_client.%' AND channel = 'cli'",
      ),
    ).toBe(2);
  });
});
