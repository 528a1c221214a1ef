import type { ScanOutcome, ScanReport } from '../types.js';
import { countsInWords, countVerdicts, headerLines, outcomeName, summaryByInvariant } from './summary.js';

const WORDS = {
  pass: 'pass',
  fail: '**FAIL**',
  'not-applicable': 'not applicable',
  undetermined: 'undetermined',
} as const;

/** Text safe inside a Markdown table cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A fence longer than any backtick run in `text`, so evidence cannot close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

function section(outcome: ScanOutcome): string {
  const lines = [
    `### ${WORDS[outcome.verdict]}: ${outcomeName(outcome)}`,
    '',
    `${outcome.invariant} ${outcome.title}.`,
  ];
  if (outcome.reason) lines.push('', `Reason: ${outcome.reason}`);
  if (outcome.findings.length > 0) lines.push('', ...outcome.findings.map((finding) => `- ${finding}`));
  for (const item of outcome.evidence) lines.push('', fenced(`> ${item.request}\n${item.answer}`));
  return lines.join('\n');
}

/**
 * The report as Markdown (a CI summary, a pull-request comment): the target,
 * a table per invariant, a table of every outcome, then a section with
 * findings and evidence for every failure and every undetermined check.
 */
export function renderMarkdown(report: ScanReport): string {
  const parts = [
    '# gatehouse scan',
    headerLines(report)
      .map((line) => `- ${line}`)
      .join('\n'),
    `**${countsInWords(countVerdicts(report.outcomes))}**`,
    '## By invariant',
    ['| invariant | pass | fail | not applicable | undetermined |', '| --- | --- | --- | --- | --- |']
      .concat(
        summaryByInvariant(report).map(
          ({ invariant, counts }) =>
            `| ${invariant} | ${counts.pass} | ${counts.fail} | ${counts['not-applicable']} | ${counts.undetermined} |`,
        ),
      )
      .join('\n'),
    '## Checks',
    ['| check | verdict | why |', '| --- | --- | --- |']
      .concat(
        report.outcomes.map(
          (o) =>
            `| ${cell(outcomeName(o))} | ${WORDS[o.verdict]} | ${cell(o.reason ?? o.findings[0] ?? '')} |`,
        ),
      )
      .join('\n'),
  ];
  const detailed = report.outcomes.filter((o) => o.verdict === 'fail' || o.verdict === 'undetermined');
  if (detailed.length > 0) parts.push('## Findings and evidence', ...detailed.map(section));
  return `${parts.join('\n\n')}\n`;
}
