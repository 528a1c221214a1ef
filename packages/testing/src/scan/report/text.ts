import type { ScanReport } from '../types.js';
import { countsInWords, countVerdicts, headerLines, outcomeName, summaryByInvariant } from './summary.js';

const LABELS = { pass: 'PASS ', fail: 'FAIL ', 'not-applicable': 'N/A  ', undetermined: 'UNDET' } as const;

const indent = (text: string, prefix: string) =>
  text
    .split('\n')
    .map((line) => `${prefix}${line}`)
    .join('\n');

/**
 * The report as plain text for a person at a terminal: one line per check
 * and target, findings and evidence under every failure, the reason of every
 * check that did not apply or could not be observed, then a summary per
 * invariant.
 */
export function renderText(report: ScanReport): string {
  const lines = ['gatehouse scan', ...headerLines(report), ''];
  for (const outcome of report.outcomes) {
    const reason = outcome.reason ? `: ${outcome.reason}` : '';
    lines.push(`${LABELS[outcome.verdict]}  ${outcomeName(outcome)}${reason}`);
    if (outcome.verdict !== 'fail') continue;
    for (const finding of outcome.findings) lines.push(`        - ${finding}`);
    for (const item of outcome.evidence.slice(0, 2)) {
      lines.push(indent(item.request, '        > '), indent(item.answer, '        < '));
    }
  }
  lines.push('', 'by invariant:');
  for (const { invariant, counts } of summaryByInvariant(report))
    lines.push(`  ${invariant.padEnd(4)} ${countsInWords(counts)}`);
  lines.push(
    '',
    `${countsInWords(countVerdicts(report.outcomes))} (${(report.durationMs / 1000).toFixed(1)} s)`,
  );
  return `${lines.join('\n')}\n`;
}
