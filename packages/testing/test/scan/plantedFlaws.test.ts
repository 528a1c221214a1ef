import { describe, expect, it } from 'vitest';
import { runScan, SCAN_CHECKS, type ScanReport } from '../../src/index.js';
import type { Flaws } from '../contract/host/flaws.js';
import { startNotesHost } from '../contract/host/notesHost.js';

/** A flaw of the kit's notes host and the scan check that must fail for it. */
interface Planted {
  readonly flaw: keyof Flaws;
  readonly check: string;
  readonly tool?: string;
  readonly finding: RegExp;
  /** The check needs valid calls (get_note's arguments). */
  readonly calls?: boolean;
}

const PLANTED: readonly Planted[] = [
  {
    flaw: 'stripsUnknownArguments',
    check: 'I14.unknown-arguments',
    tool: 'update_note',
    finding: /does not name the unknown field/,
  },
  {
    flaw: 'stripsUnknownArguments',
    check: 'I3.tenant-arguments',
    tool: 'update_note',
    finding: /does not name tenant/,
  },
  {
    flaw: 'trustsForeignOrigin',
    check: 'I5.origin-host',
    finding: /Origin https:\/\/evil\.example .* not 403/,
  },
  {
    flaw: 'instructiveDescription',
    check: 'I16.descriptions',
    tool: 'find_notes',
    finding: /instructs the model/,
  },
  {
    flaw: 'rewritesErrors',
    check: 'I18.error-envelope',
    tool: 'get_note',
    finding: /does not start with "Error:"/,
  },
  {
    flaw: 'invalidOutputSchema',
    check: 'I19.output-schema',
    tool: 'get_note',
    finding: /not a valid JSON Schema|does not describe an object/,
  },
  {
    flaw: 'wrongOutputSchema',
    check: 'I19.result-shape',
    tool: 'get_note',
    finding: /does not validate against the outputSchema/,
    calls: true,
  },
];

async function scanNotes(flaws: Flaws, checks: readonly string[], calls: boolean): Promise<ScanReport> {
  const host = await startNotesHost(flaws);
  try {
    const token = await host.mint(host.home);
    if (host.endpoint.transport !== 'http') throw new Error('the notes host serves HTTP');
    // #region scan-from-code
    return await runScan({
      endpoint: {
        transport: 'http',
        url: new URL(host.endpoint.url),
        credential: { authorization: `Bearer ${token}` },
      },
      credential: 'token',
      public: false,
      allowCalls: calls,
      allowWrites: false,
      ...(calls ? { fixture: { tools: { get_note: { arguments: { id: 'n1' } } } } } : {}),
      eras: ['2026-07-28'],
      checks: SCAN_CHECKS.filter((check) => checks.includes(check.id)),
    });
    // #endregion scan-from-code
  } finally {
    await host.close();
  }
}

describe('gatehouse scan against planted flaws', () => {
  for (const planted of PLANTED) {
    it(`fails ${planted.check} when the host has the flaw ${planted.flaw}`, async () => {
      const report = await scanNotes({ [planted.flaw]: true }, [planted.check], planted.calls ?? false);
      const failed = report.outcomes.filter(
        (o) => o.verdict === 'fail' && (planted.tool === undefined || o.tool === planted.tool),
      );
      expect(failed.flatMap((o) => o.findings).join('\n')).toMatch(planted.finding);
    }, 60_000);
  }

  it('passes authentication without a credential, fails on a 401 naming no resource metadata, leaves the tool checks undetermined', async () => {
    const host = await startNotesHost();
    try {
      if (host.endpoint.transport !== 'http') throw new Error('the notes host serves HTTP');
      const report = await runScan({
        endpoint: { transport: 'http', url: new URL(host.endpoint.url), credential: {} },
        credential: 'none',
        public: false,
        allowCalls: false,
        allowWrites: false,
        checks: SCAN_CHECKS.filter((check) =>
          ['I5.authentication', 'I21.resource-metadata', 'I14.unknown-arguments'].includes(check.id),
        ),
      });
      expect(report.eras).toEqual([]);
      expect(report.outcomes.map((o) => [o.check, o.verdict, o.era ?? o.reason])).toEqual([
        ['I5.authentication', 'pass', '2026-07-28'],
        ['I5.authentication', 'pass', '2025-11-25'],
        ['I21.resource-metadata', 'fail', undefined],
        [
          'I14.unknown-arguments',
          'undetermined',
          'the server requires a credential (HTTP 401); rerun with --token or --header',
        ],
      ]);
    } finally {
      await host.close();
    }
  }, 60_000);

  it('passes the same checks against the unbroken host', async () => {
    const report = await scanNotes({}, [...new Set(PLANTED.map((p) => p.check))], true);
    const judged = report.outcomes.filter((o) =>
      PLANTED.some((p) => p.check === o.check && (p.tool === undefined || p.tool === o.tool)),
    );
    expect(judged.length).toBe(PLANTED.length);
    expect(
      judged.filter((o) => o.verdict !== 'pass').map((o) => `${o.check} ${o.tool}: ${o.findings.join('; ')}`),
    ).toEqual([]);
  }, 60_000);
});
