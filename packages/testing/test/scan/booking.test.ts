import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBooking } from '../../../../scripts/bookingUnderTest.mjs';
import { buildCurrent } from '../../../../scripts/buildCurrent.mjs';
import { renderSarif, type ScanReport } from '../../src/index.js';
import { fixtureFile, verdictOf } from './scanCli.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The `gatehouse` bin of the built package (`bin` in its package.json). */
const BIN = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const run = promisify(execFile);

/** Safe arguments for the seeded booking product: every read, and each outward tool (they only prepare). */
function bookingFixture() {
  const until = new Date(Date.now() + 3_600_000).toISOString().replace(/\.\d+Z$/, '+00:00');
  return fixtureFile({
    find_customers: { arguments: {} },
    get_customer: { arguments: { id: 'cu_ada' } },
    find_technicians: { arguments: {} },
    find_bookings: { arguments: {} },
    get_booking: { arguments: { id: 'bk_ada_boiler' } },
    list_recent_changes: { arguments: {} },
    notify_customer: { arguments: { booking_id: 'bk_ada_boiler' } },
    page_technician: { arguments: { technician_id: 'te_kim', message: 'Scan check' } },
    mute_alerts: { arguments: { until, reason: 'scan check' } },
    delete_booking: { arguments: { booking_id: 'bk_alan_check' } },
  });
}

describe('gatehouse scan against the booking example', () => {
  // the bin and the booking server run built: build what is missing or out of date (after `npm run build`, nothing)
  beforeAll(() => buildCurrent(['@gatehousejs/testing', '@gatehousejs/example-booking'], () => {}), 300_000);

  it('passes every applicable check through the package’s bin (the pack check runs the packed one through npx), valid calls and writes allowed, and locates tools in its sources', async () => {
    const booking = await startBooking({ label: 'scan', publicUrl: true });
    try {
      using fixture = bookingFixture();
      const args = ['--no-install', '@gatehousejs/testing', 'scan', booking.url, '--token', booking.token];
      args.push(
        '--allow-calls',
        '--allow-writes',
        '--fixture',
        fixture.path,
        '--format',
        'json',
        '--source',
        'examples/booking',
      );
      // npx runs the bin npm links into node_modules/.bin: after `npm ci`, a build made later is
      // linked only by a fresh install, so the test runs that bin's target the same way
      const { stdout } = await run(process.execPath, [BIN, ...args.slice(2)], {
        cwd: ROOT,
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(stdout).not.toContain(booking.token);
      const report = JSON.parse(stdout) as ScanReport;
      const failed = report.outcomes.filter((o) => o.verdict === 'fail');
      expect(failed.map((o) => `${o.check} ${o.tool ?? o.era ?? ''}: ${o.findings.join('; ')}`)).toEqual([]);
      expect(report.eras).toEqual(['2026-07-28', '2025-11-25']);
      expect(report.outcomes.filter((o) => o.verdict === 'pass').length).toBeGreaterThan(100);
      for (const era of ['2026-07-28', '2025-11-25']) {
        expect(verdictOf(report, 'I5.authentication', undefined, era).verdict).toBe('pass');
        expect(verdictOf(report, 'I5.origin-host', undefined, era).verdict).toBe('pass');
        expect(verdictOf(report, 'I14.protocol-hygiene', undefined, era).verdict).toBe('pass');
      }
      expect(verdictOf(report, 'I21.resource-metadata').verdict).toBe('pass');
      for (const tool of ['notify_customer', 'page_technician', 'mute_alerts', 'delete_booking']) {
        expect(verdictOf(report, 'I9.two-step', tool).verdict, tool).toBe('pass');
      }
      expect(verdictOf(report, 'I8.read-only-repeat', 'get_booking').verdict).toBe('pass');
      expect(verdictOf(report, 'I19.result-shape', 'find_bookings').verdict).toBe('pass');
      expect(verdictOf(report, 'I7.rate-limit', 'create_booking').verdict).toBe('pass');
      for (const tool of report.tools)
        expect(verdictOf(report, 'I14.unknown-arguments', tool).verdict, tool).toBe('pass');
      // the approval a person must give is never followed: the scan only reads the answer
      const sarif = renderSarif(report) as {
        runs: { results: { ruleId: string; locations: unknown[] }[] }[];
      };
      const located = sarif.runs[0]?.results.find(
        (r) => r.ruleId === 'I14.unknown-arguments' && JSON.stringify(r).includes('get_booking'),
      );
      expect(located?.locations[0]).toMatchObject({
        physicalLocation: {
          artifactLocation: { uri: 'src/mcp/tools/bookings.ts', uriBaseId: 'SRCROOT' },
          region: { startLine: 25 },
        },
      });
    } finally {
      await booking.stop();
    }
  }, 120_000);
});
