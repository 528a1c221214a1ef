import { describe, expect, it } from 'vitest';
import { freePort } from '../../../../scripts/bookingUnderTest.mjs';
import {
  renderMarkdown,
  renderSarif,
  renderText,
  runCli,
  type ScanReport,
  scanExitCode,
  summaryByInvariant,
} from '../../src/index.js';

const REPORT: ScanReport = {
  target: 'http://127.0.0.1:3000/mcp',
  transport: 'http',
  eras: ['2026-07-28'],
  server: { name: 'orders', version: '1.0.0' },
  tools: ['get_order', 'cancel_order'],
  mode: { credential: 'token', public: false, allowCalls: false, allowWrites: false },
  outcomes: [
    {
      check: 'I14.unknown-arguments',
      invariant: 'I14',
      title: 'unknown arguments',
      tool: 'get_order',
      verdict: 'fail',
      findings: ['the refusal does not name the unknown field'],
      evidence: [
        {
          request: 'tools/call get_order {"gh_unknown_field":"scan probe"}',
          answer: 'HTTP 200\n{"result":{"isError":true,"text":"``` order_id"}}',
        },
      ],
    },
    {
      check: 'I5.origin-host',
      invariant: 'I5',
      title: 'Origin and Host',
      era: '2026-07-28',
      verdict: 'pass',
      findings: [],
      evidence: [],
    },
    {
      check: 'I9.two-step',
      invariant: 'I9',
      title: 'outward effects take two steps',
      tool: 'cancel_order',
      verdict: 'undetermined',
      reason: 'needs --allow-calls and safe arguments in --fixture',
      findings: [],
      evidence: [],
    },
    {
      check: 'I9.two-step',
      invariant: 'I9',
      title: 'outward effects take two steps',
      tool: 'get_order',
      verdict: 'not-applicable',
      reason: 'its hints say it neither destroys nor reaches outside',
      findings: [],
      evidence: [],
    },
  ],
  startedAt: '2026-12-06T10:00:00.000Z',
  durationMs: 1200,
};

describe('scan reports', () => {
  it('counts verdicts per invariant in invariant order and exits 1 on a failure', () => {
    expect(summaryByInvariant(REPORT).map((s) => s.invariant)).toEqual(['I5', 'I9', 'I14']);
    expect(summaryByInvariant(REPORT)[1]?.counts).toEqual({
      pass: 0,
      fail: 0,
      'not-applicable': 1,
      undetermined: 1,
    });
    expect(scanExitCode(REPORT)).toBe(1);
    expect(scanExitCode({ ...REPORT, outcomes: REPORT.outcomes.slice(1) })).toBe(0);
  });

  it('renders text with findings and evidence under a failure and reasons inline', () => {
    const text = renderText(REPORT);
    expect(text).toContain(
      'FAIL   I14.unknown-arguments › get_order\n        - the refusal does not name the unknown field\n        > tools/call get_order',
    );
    expect(text).toContain('UNDET  I9.two-step › cancel_order: needs --allow-calls');
    expect(text).toContain('PASS   I5.origin-host [2026-07-28]');
    expect(text).toMatch(/1 pass, 1 fail, 1 not applicable, 1 undetermined \(1\.2 s\)\n$/);
  });

  it('renders Markdown with a table per invariant and evidence fenced longer than any backticks in it', () => {
    const markdown = renderMarkdown(REPORT);
    expect(markdown).toContain('| I14 | 0 | 1 | 0 | 0 |');
    expect(markdown).toContain(
      '| I9.two-step › cancel_order | undetermined | needs --allow-calls and safe arguments in --fixture |',
    );
    expect(markdown).toContain('### **FAIL**: I14.unknown-arguments › get_order');
    expect(markdown).toContain('````text\n> tools/call get_order');
  });

  it('renders SARIF 2.1.0: kinds per verdict, located at the server or at the tool definition', () => {
    const log = renderSarif(REPORT) as {
      version: string;
      runs: { results: Record<string, unknown>[]; tool: { driver: { rules: { id: string }[] } } }[];
    };
    const [run] = log.runs;
    expect(log.version).toBe('2.1.0');
    expect(run?.results.map((r) => [r.ruleId, r.kind, r.level])).toEqual([
      ['I14.unknown-arguments', 'fail', 'error'],
      ['I5.origin-host', 'pass', 'none'],
      ['I9.two-step', 'review', 'none'],
      ['I9.two-step', 'notApplicable', 'none'],
    ]);
    expect(run?.results[0]?.locations).toEqual([
      {
        physicalLocation: { artifactLocation: { uri: 'http://127.0.0.1:3000/mcp' } },
        logicalLocations: [
          { name: 'get_order', fullyQualifiedName: 'http://127.0.0.1:3000/mcp#get_order', kind: 'function' },
        ],
      },
    ]);
    const rules = run?.tool.driver.rules.map((r) => r.id) ?? [];
    expect(run?.results.every((r) => rules[r.ruleIndex as number] === r.ruleId)).toBe(true);
    const custom = {
      check: 'X1.own-check',
      invariant: 'X1',
      title: 'a team check',
      verdict: 'pass' as const,
      findings: [],
      evidence: [],
    };
    const own = renderSarif({ ...REPORT, outcomes: [custom] }) as typeof log;
    const ownRules = own.runs[0]?.tool.driver.rules.map((r) => r.id) ?? [];
    expect(ownRules[own.runs[0]?.results[0]?.ruleIndex as number]).toBe('X1.own-check');
    const inProject = renderSarif({
      ...REPORT,
      sourceRoot: '/repo/app',
      sources: { get_order: { file: 'src/tools.ts', line: 12 } },
    }) as typeof log & { runs: { originalUriBaseIds: unknown }[] };
    expect(inProject.runs[0]?.results[0]?.locations).toMatchObject([
      {
        physicalLocation: {
          artifactLocation: { uri: 'src/tools.ts', uriBaseId: 'SRCROOT' },
          region: { startLine: 12 },
        },
      },
    ]);
    expect(inProject.runs[0]?.originalUriBaseIds).toEqual({ SRCROOT: { uri: 'file:///repo/app/' } });
  });
});

describe('runCli', () => {
  const io = () => {
    const seen = { out: '', err: '' };
    const write = (text: string) => {
      seen.out += text;
    };
    const error = (text: string) => {
      seen.err += text;
    };
    return { seen, io: { cwd: process.cwd(), env: {}, write, error } };
  };

  it('exits 2 with the usage for a bad command line, and 0 for --help', async () => {
    const bad = io();
    expect(await runCli(['scan', '--allow-writes', 'http://127.0.0.1:1/mcp'], bad.io)).toBe(2);
    expect(bad.seen.err).toMatch(
      /^gatehouse scan: --allow-writes needs --allow-calls\n\nUsage: gatehouse scan <url>/,
    );
    expect(await runCli(['audit'], bad.io)).toBe(2);
    const help = io();
    expect(await runCli(['scan', '--help'], help.io)).toBe(0);
    expect(help.seen.out).toMatch(/Exit codes: 0 no check failed/);
  });

  it('exits 3 when nothing answers, naming the endpoint', async () => {
    const closed = io();
    const url = `http://127.0.0.1:${await freePort()}/mcp`;
    expect(await runCli(['scan', url, '--timeout', '2000'], closed.io)).toBe(3);
    expect(closed.seen.err).toMatch(
      new RegExp(`no answer from ${url.replace(/[.]/g, '\\.')}: .*ECONNREFUSED`),
    );
  });
});
