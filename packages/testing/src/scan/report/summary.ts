import type { ScanOutcome, ScanReport, Verdict } from '../types.js';

/** How many outcomes had each verdict. */
export type VerdictCounts = Readonly<Record<Verdict, number>>;

const VERDICTS: readonly Verdict[] = ['pass', 'fail', 'not-applicable', 'undetermined'];

/** Counts the verdicts of `outcomes`. */
export function countVerdicts(outcomes: readonly ScanOutcome[]): VerdictCounts {
  const counts = { pass: 0, fail: 0, 'not-applicable': 0, undetermined: 0 };
  for (const outcome of outcomes) counts[outcome.verdict] += 1;
  return counts;
}

const invariantOrder = (id: string) => Number(id.replace(/\D/g, '')) || 0;

/** The verdict counts per invariant, in invariant order (I3 before I14). */
export function summaryByInvariant(report: ScanReport): { invariant: string; counts: VerdictCounts }[] {
  const invariants = [...new Set(report.outcomes.map((o) => o.invariant))].sort(
    (a, b) => invariantOrder(a) - invariantOrder(b),
  );
  return invariants.map((invariant) => ({
    invariant,
    counts: countVerdicts(report.outcomes.filter((o) => o.invariant === invariant)),
  }));
}

/** The exit code of a scan: 1 when any check failed, else 0. */
export const scanExitCode = (report: ScanReport): 0 | 1 =>
  report.outcomes.some((o) => o.verdict === 'fail') ? 1 : 0;

/** Counts as words: `3 pass, 1 fail, 2 not applicable, 0 undetermined`. */
export function countsInWords(counts: VerdictCounts): string {
  return VERDICTS.map((v) => `${counts[v]} ${v === 'not-applicable' ? 'not applicable' : v}`).join(', ');
}

/** The name of an outcome: `I14.unknown-arguments › echo [2026-07-28]`. */
export function outcomeName(outcome: ScanOutcome): string {
  const tool = outcome.tool === undefined ? '' : ` › ${outcome.tool}`;
  const era = outcome.era === undefined ? '' : ` [${outcome.era}]`;
  return `${outcome.check}${tool}${era}`;
}

/** The report's header lines: what was scanned, how, and what it is. */
export function headerLines(report: ScanReport): string[] {
  const server = report.server
    ? ` ${[report.server.name, report.server.version].filter(Boolean).join(' ')}`
    : '';
  const eras = report.eras.length > 0 ? report.eras.join(', ') : 'none answered';
  const calls = report.mode.allowCalls
    ? `valid calls allowed${report.mode.allowWrites ? ', writes too' : ' (read-only tools only)'}`
    : 'only requests a correct server refuses';
  const credential =
    report.mode.credential === 'none'
      ? report.mode.public
        ? 'no credential (declared public)'
        : 'no credential'
      : `credential: ${report.mode.credential}`;
  return [
    `target: ${report.target} (${report.transport})`,
    `server:${server || ' (no name given)'}; eras: ${eras}; tools: ${report.tools.length}`,
    `mode: ${credential}; ${calls}`,
  ];
}
