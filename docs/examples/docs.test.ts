import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EFFECT_TRAITS, EFFECTS, ERROR_CODES } from '@gatehousejs/core';
import { RawHttpClient } from '@gatehousejs/testing';
import { describe, expect, it, vi } from 'vitest';

const doc = (name: string) => readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');

describe('docs', () => {
  it('keeps every quoted block of the docs equal to the tested region it quotes', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    // every written page (not the site's generated folders) and the README
    const generated = /^(api|repo|\.vitepress|node_modules)\//;
    const pages = readdirSync(new URL('../', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((name) => name.endsWith('.md') && !generated.test(name))
      .map((name) => `docs/${name}`);
    expect(pages).toContain('docs/presenters/money.md');
    // exits non-zero, naming the page, when a quoted block and its region differ
    expect(() =>
      execFileSync(process.execPath, ['scripts/quoteRegions.mjs', '--check', ...pages, 'README.md'], {
        cwd: root,
        stdio: 'pipe',
      }),
    ).not.toThrow();
  });

  it('runs the first server of the README exactly as written', async () => {
    const token = randomBytes(32).toString('hex');
    const logged = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.stubEnv('NOTES_TOKEN', token);
    vi.stubEnv('PORT', '0');
    const { running } = await import('./firstServer.js');
    try {
      expect(logged).toHaveBeenCalledWith(`Notes MCP server on ${running.url}`);
      expect(JSON.stringify(logged.mock.calls)).not.toContain(token);
      const client = new RawHttpClient({
        url: running.url,
        era: '2026-07-28',
        headers: { authorization: `Bearer ${token}` },
      });
      const reply = await client.callTool('find_notes', { query: 'Ada' });
      expect(reply.result?.structuredContent).toEqual({
        status: 'ok',
        result: { notes: [{ id: 'n1', text: 'Call Ada about the boiler' }] },
      });
      expect(reply.text).not.toContain('never shown');
      expect(reply.text).not.toContain('ws_1');
      const stranger = new RawHttpClient({
        url: running.url,
        era: '2026-07-28',
        headers: { authorization: 'Bearer guess' },
      });
      expect((await stranger.callTool('find_notes', { query: 'Ada' })).status).toBe(401);
    } finally {
      await running.close();
      logged.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it('keeps the first server within 40 lines and quotes it verbatim in the README', () => {
    const source = readFileSync(new URL('./firstServer.ts', import.meta.url), 'utf8');
    const region = source.split('// #region first-server\n')[1]?.split('// #endregion first-server')[0] ?? '';
    expect(region).toContain('listen(server');
    expect(region.trimEnd().split('\n').length).toBeLessThanOrEqual(40);
    expect(readFileSync(new URL('../../README.md', import.meta.url), 'utf8')).toContain(
      `\`\`\`ts\n${region.trimEnd()}\n\`\`\``,
    );
  });

  it('runs the write tools of defining-tools.md: a duplicate create, a stale version, a re-sent write, a guard’s context', async () => {
    const { db, server } = await import('./writeTools.js');
    const connection = {
      connectionId: 'c1',
      tenantId: 'ws_1',
      creatorId: 'p1',
      clientName: 'docs',
      channel: 'mcp' as const,
      rights: new Set(['bookings.write'] as const),
    };
    const call = (name: string, args: object) =>
      server
        .callTool(connection, name, args)
        .then((r) => r.structuredContent as { result?: { version?: string }; [key: string]: unknown });
    const ada = { customer_id: 'c_ada', starts_at: '2026-05-04T09:00', note: 'Boiler' };
    const created = await call('create_booking', ada);
    expect(created).toMatchObject({ status: 'ok', result: { id: 'bk_1' } });
    expect(await call('create_booking', ada)).toMatchObject({ replayed: true });
    expect(await call('create_booking', { ...ada, note: 'Again' })).toMatchObject({
      error: { code: 'duplicate', next: { tool: 'update_booking', arguments: { id: 'bk_1' } } },
    });
    expect(await call('create_booking', { ...ada, starts_at: '2026-05-04T06:00' })).toMatchObject({
      error: { code: 'invalid_arguments' },
    });
    const version = created.result?.version;
    expect(await call('update_booking', { id: 'bk_1', note: 'Valve', version })).toMatchObject({
      status: 'ok',
    });
    expect(await call('update_booking', { id: 'bk_1', note: 'Stale', version })).toMatchObject({
      error: { code: 'conflict' },
    });
    expect(await call('append_note', { id: 'bk_1', line: 'Parts ordered' })).toMatchObject({
      status: 'ok',
      result: { note: 'Valve\nParts ordered' },
    });
    expect(await call('append_note', { id: 'bk_1', line: 'x'.repeat(190) })).toMatchObject({
      error: { code: 'invalid_arguments', message: 'The note of bk_1 would pass 200 characters.' },
    });
    expect(db.map((b) => [b.id, b.note])).toEqual([['bk_1', 'Valve\nParts ordered']]);
  });

  it('quotes the write tools and their server verbatim in defining-tools.md', () => {
    const source = readFileSync(new URL('./writeTools.ts', import.meta.url), 'utf8');
    const page = doc('defining-tools.md');
    for (const name of ['write-gatehouse', 'write-tools', 'guard-context', 'write-server']) {
      const region = source.split(`// #region ${name}\n`)[1]?.split(`// #endregion ${name}`)[0] ?? '';
      expect(region, name).not.toBe('');
      expect(page, name).toContain(`\`\`\`ts\n${region.trimEnd()}\n\`\`\``);
    }
  });

  it('reports a failed call to the onError of errors.md: the error and its correlation id, one line without the message', async () => {
    const { lines, server, tracker } = await import('./errorHooks.js');
    const connection = {
      connectionId: 'c1',
      tenantId: 'ws_1',
      creatorId: 'p1',
      clientName: 'docs',
      channel: 'mcp' as const,
      rights: new Set(['notes.read'] as const),
    };
    const reply = await server.callTool(connection, 'find_notes', {});
    const error = (
      reply.structuredContent as { error: { code: string; details: { correlation_id: string } } }
    ).error;
    expect(error.code).toBe('internal_error');
    const correlationId = error.details.correlation_id;
    expect(tracker.captured.map((c) => [c.error.message, c.facts])).toEqual([
      ['connect ECONNREFUSED 10.0.0.7:5432', { kind: 'fault', correlationId }],
    ]);
    expect(lines).toEqual([
      {
        level: 'error',
        record: { event: 'internal_error', correlation_id: correlationId, error_type: 'Error' },
      },
    ]);
  });

  it('quotes the error hook verbatim in errors.md and serving.md', () => {
    const source = readFileSync(new URL('./errorHooks.ts', import.meta.url), 'utf8');
    const region = source.split('// #region on-error\n')[1]?.split('// #endregion on-error')[0] ?? '';
    expect(region).not.toBe('');
    for (const page of ['errors.md', 'serving.md'])
      expect(doc(page), page).toContain(`\`\`\`ts\n${region.trimEnd()}\n\`\`\``);
  });

  it('quotes the example of the core package README verbatim', () => {
    const source = readFileSync(new URL('./coreReadme.ts', import.meta.url), 'utf8');
    const region = source.split('// #region core-readme\n')[1]?.split('// #endregion core-readme')[0] ?? '';
    expect(region).toContain('standardGuards(');
    const readme = readFileSync(new URL('../../packages/core/README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`ts\n${region.trimEnd()}\n\`\`\``);
  });

  it('documents every option of createGatehouse and createServer in docs/server-options.md', () => {
    const source = (file: string, name: string) => {
      const text = readFileSync(new URL(`../../packages/core/src/${file}`, import.meta.url), 'utf8');
      const body = text.split(`export interface ${name}<`)[1]?.split('\n}\n')[0] ?? '';
      return [...body.matchAll(/^ {2}readonly (\w+)\??:/gm)].map((m) => m[1]);
    };
    const options = [...source('gatehouse.ts', 'GatehouseOptions'), ...source('server.ts', 'ServerOptions')];
    expect(options).toEqual(
      expect.arrayContaining([
        'rights',
        'services',
        'toolGuards',
        'name',
        'authenticate',
        'guards',
        'onError',
      ]),
    );
    const text = doc('server-options.md');
    for (const option of options) expect(text, option).toMatch(new RegExp(`^\\| \`${option}\` +\\|`, 'm'));
  });

  it('lists every error code in docs/errors.md', () => {
    const text = doc('errors.md');
    for (const code of Object.keys(ERROR_CODES)) expect(text, code).toContain(`\`${code}\``);
  });

  it('documents the effect table as the code defines it', () => {
    // Compare cells, not padding: the formatter aligns table columns.
    const text = doc('effects.md').replace(/ +\|/g, ' |').replace(/\| +/g, '| ');
    for (const effect of EFFECTS) {
      const a = EFFECT_TRAITS[effect].annotations;
      const row = `| \`${effect}\` | ${a.readOnlyHint} | ${a.destructiveHint} | ${a.idempotentHint} | ${a.openWorldHint} | ${EFFECT_TRAITS[effect].replayProtected ? 'yes' : 'no'} | ${EFFECT_TRAITS[effect].twoStep ? 'yes' : 'no'} |`;
      expect(text).toContain(row);
    }
  });
});
