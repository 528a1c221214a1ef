import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, Server } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../../../scripts/bookingUnderTest.mjs';
import { listen } from '../fixtures/httpServer.js';
import { fixtureFile, scanJson, serverScript, startServer, verdictOf } from './scanCli.js';

const ORDERS = {
  get_order: { arguments: { order_id: 'ord_1' } },
  cancel_order: { arguments: { order_id: 'ord_2' } },
};
/** Valid calls too, and a short rate probe: these servers have no rate limit to find. */
const CALLS = ['--public', '--allow-calls', '--allow-writes', '--rate-probe', '8'];

/** Each case starts a server and sends a few hundred requests: generous under a loaded machine. */
const SLOW = 90_000;

describe('gatehouse scan against bare SDK servers', () => {
  it(
    'reports the low-level Server: arguments unchecked, errors verbatim, no Host/Origin check, one-step cancel, a read-only hint that fails',
    async () => {
      await using server = await startServer(process.execPath, [
        serverScript('sdkServer.mjs'),
        'low-level',
        'http',
      ]);
      using fixture = fixtureFile({ ...ORDERS, track_order: { arguments: { order_id: 'ord_1' } } });
      const { code, report } = await scanJson([server.url, ...CALLS, '--fixture', fixture.path]);
      expect(code).toBe(1);
      expect(report?.eras).toEqual(['2026-07-28', '2025-11-25']);
      const unknown = verdictOf(report, 'I14.unknown-arguments', 'get_order');
      expect(unknown.verdict).toBe('fail');
      expect(unknown.findings.join('\n')).toMatch(/does not name the unknown field/);
      const leaks = verdictOf(report, 'I18.error-leaks', 'get_order');
      expect(leaks.verdict).toBe('fail');
      expect(leaks.findings.join('\n')).toMatch(
        /a connection string: postgres:\/\/orders:\*\*\*@db\.internal/,
      );
      expect(leaks.findings.join('\n')).toMatch(/SQL/);
      expect(JSON.stringify(report)).not.toContain('hunter2');
      for (const era of ['2026-07-28', '2025-11-25']) {
        const gate = verdictOf(report, 'I5.origin-host', undefined, era);
        expect(gate.verdict).toBe('fail');
        expect(gate.findings.join('\n')).toMatch(/Origin https:\/\/evil\.example .* not 403/);
      }
      expect(verdictOf(report, 'I9.two-step', 'cancel_order').findings.join('\n')).toMatch(
        /acted in one call/,
      );
      expect(verdictOf(report, 'I8.read-only-repeat', 'get_order').verdict).toBe('pass');
      expect(verdictOf(report, 'I8.read-only-repeat', 'track_order').findings).toEqual([
        'a tool hinted read-only answered a repeated call differently, first at lookups: its first call changed what it reads',
      ]);
      expect(verdictOf(report, 'I5.authentication', undefined, '2026-07-28').verdict).toBe('not-applicable');
      expect(verdictOf(report, 'I7.rate-limit', 'cancel_order').verdict).toBe('undetermined');
      // the same server scanned without --public: answering with no credential fails authentication
      const open = await scanJson([server.url, '--era', '2026-07-28', '--rate-probe', '1']);
      expect(open.code).toBe(1);
      expect(verdictOf(open.report, 'I5.authentication', undefined, '2026-07-28').findings).toEqual([
        'the server answered without any credential (pass --public if that is intended)',
      ]);
    },
    SLOW,
  );

  it(
    'reports McpServer with zod: unknown keys stripped, errors verbatim, structuredContent without a text copy',
    async () => {
      await using server = await startServer(process.execPath, [
        serverScript('sdkServer.mjs'),
        'mcp-server',
        'http',
      ]);
      using fixture = fixtureFile(ORDERS);
      const { code, report } = await scanJson([server.url, ...CALLS, '--fixture', fixture.path]);
      expect(code).toBe(1);
      const unknown = verdictOf(report, 'I14.unknown-arguments', 'get_order');
      expect(unknown.findings).toContain('unknown fields look stripped or ignored instead of refused');
      // zod's refusal names the missing order_id, never the extra field it dropped
      expect(unknown.evidence[0]?.answer).toMatch(/order_id/);
      expect(unknown.evidence[0]?.answer).not.toMatch(/gh_unknown_field/);
      expect(verdictOf(report, 'I18.error-leaks', 'get_order').findings.join('\n')).toMatch(
        /connection string/,
      );
      expect(verdictOf(report, 'I19.result-shape', 'get_order').findings.join('\n')).toMatch(
        /structuredContent has no text copy/,
      );
      expect(verdictOf(report, 'I19.output-schema', 'get_order').verdict).toBe('pass');
      expect(verdictOf(report, 'I5.origin-host', undefined, '2026-07-28').verdict).toBe('fail');
    },
    SLOW,
  );

  it(
    'reports FastMCP from npm: unknown keys stripped, errors verbatim, no Host/Origin check',
    async () => {
      await using server = await startServer(process.execPath, [
        serverScript('fastmcpServer.mjs'),
        String(await freePort()),
      ]);
      using fixture = fixtureFile(ORDERS);
      const { code, report } = await scanJson([server.url, ...CALLS, '--fixture', fixture.path]);
      expect(code).toBe(1);
      expect(report?.eras).toEqual(['2025-11-25']);
      expect(verdictOf(report, 'I14.unknown-arguments', 'cancel_order').findings).toContain(
        'unknown fields look stripped or ignored instead of refused',
      );
      const leaks = verdictOf(report, 'I18.error-leaks', 'get_order');
      expect(leaks.findings.join('\n')).toMatch(/connection string/);
      expect(leaks.evidence.map((e) => e.answer).join('\n')).toMatch(/execution failed: query failed/);
      expect(verdictOf(report, 'I5.origin-host', undefined, '2025-11-25').verdict).toBe('fail');
      expect(verdictOf(report, 'I9.two-step', 'cancel_order').verdict).toBe('fail');
    },
    SLOW,
  );
});

describe('gatehouse scan over stdio', () => {
  it(
    'scans a stdio server: the HTTP-only checks do not apply, the argument and error checks fail as over HTTP',
    async () => {
      using fixture = fixtureFile(ORDERS);
      const stdio = `"${process.execPath}" "${serverScript('sdkServer.mjs')}" low-level stdio`;
      const { code, report } = await scanJson([
        '--stdio',
        stdio,
        '--allow-calls',
        '--fixture',
        fixture.path,
        '--rate-probe',
        '4',
      ]);
      expect(code).toBe(1);
      expect(report?.transport).toBe('stdio');
      expect(report?.eras).toEqual(['2026-07-28', '2025-11-25']);
      expect(report?.tools).toEqual(['get_order', 'cancel_order', 'track_order']);
      expect(verdictOf(report, 'I5.authentication').reason).toMatch(/stdio carries no credential/);
      expect(verdictOf(report, 'I5.origin-host').verdict).toBe('not-applicable');
      expect(verdictOf(report, 'I14.unknown-arguments', 'get_order').verdict).toBe('fail');
      expect(verdictOf(report, 'I18.error-leaks', 'get_order').findings.join('\n')).toMatch(/SQL/);
      expect(verdictOf(report, 'I8.read-only-repeat', 'get_order').verdict).toBe('pass');
      // without --allow-writes the cancel is never sent
      expect(verdictOf(report, 'I9.two-step', 'cancel_order').reason).toMatch(/needs --allow-writes/);
      expect(verdictOf(report, 'I14.limits', 'get_order').verdict).not.toBe('undetermined');
    },
    SLOW,
  );
});

/** A server whose 401 names its resource metadata and whose destructive tool answers with an approval URL, both on itself. */
function urlHandingServer(base: () => string) {
  const server = new Server({ name: 'url-handing', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/list', async () => ({
    tools: [
      {
        name: 'purge_orders',
        description: 'Deletes the orders of a scope once a person approves.',
        inputSchema: {
          type: 'object',
          properties: { scope: { type: 'string' } },
          required: ['scope'],
          additionalProperties: false,
        },
        annotations: { destructiveHint: true },
      },
    ],
  }));
  server.setRequestHandler('tools/call', async () => {
    const pending = { status: 'approval_pending', approval_url: `${base()}/approve/1` };
    return { content: [{ type: 'text', text: JSON.stringify(pending) }], structuredContent: pending };
  });
  return server;
}

describe('gatehouse scan and the URLs a server hands out', () => {
  it(
    'never requests the resource metadata or an approval URL the server returns',
    async () => {
      const paths: string[] = [];
      let origin = '';
      const handle = toNodeHandler(createMcpHandler(() => urlHandingServer(() => origin)));
      await using served = await listen((req, res) => {
        paths.push(req.url ?? '');
        if (req.url !== '/mcp') {
          res.writeHead(404).end();
        } else if (req.headers.authorization !== 'Bearer scan-test-token') {
          const metadata = `${origin}/.well-known/oauth-protected-resource/mcp`;
          res.writeHead(401, { 'www-authenticate': `Bearer resource_metadata="${metadata}"` }).end();
        } else {
          void handle(req, res);
        }
      });
      origin = new URL(served.url).origin;
      using fixture = fixtureFile({ purge_orders: { arguments: { scope: 'test' } } });
      const flags = [
        '--token',
        'scan-test-token',
        '--allow-calls',
        '--allow-writes',
        '--fixture',
        fixture.path,
      ];
      const { report } = await scanJson([served.url, ...flags, '--rate-probe', '4']);
      expect(verdictOf(report, 'I21.resource-metadata').verdict).toBe('pass');
      expect(verdictOf(report, 'I9.two-step', 'purge_orders').verdict).toBe('pass');
      expect(paths.length).toBeGreaterThan(20);
      expect(paths.filter((path) => path !== '/mcp')).toEqual([]);
    },
    SLOW,
  );
});
