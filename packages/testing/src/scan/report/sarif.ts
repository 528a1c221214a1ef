import { SCAN_CHECKS } from '../catalog.js';
import type { ScanOutcome, ScanReport, Verdict } from '../types.js';
import { outcomeName } from './summary.js';

/** SARIF's `kind` for each verdict. */
const KINDS: Readonly<Record<Verdict, string>> = {
  pass: 'pass',
  fail: 'fail',
  'not-applicable': 'notApplicable',
  undetermined: 'review',
};

/** The URI the server is located at: its URL, or for stdio a `stdio:` URI of the command line. */
function artifactUri(report: ScanReport): string {
  return report.transport === 'http' ? report.target : `stdio:${encodeURIComponent(report.target)}`;
}

function messageOf(outcome: ScanOutcome): string {
  const head = `${outcomeName(outcome)}: ${outcome.verdict}`;
  if (outcome.reason) return `${head} (${outcome.reason})`;
  return outcome.findings.length > 0 ? `${head}. ${outcome.findings.join('. ')}` : head;
}

/**
 * Where a result is: at the tool's definition (file and line) when the scan
 * ran in a Gatehouse project that defines it, else at the server (its URL as
 * the artifact), with the tool as a logical location.
 */
function locationOf(report: ScanReport, outcome: ScanOutcome) {
  const logical =
    outcome.tool === undefined
      ? []
      : [{ name: outcome.tool, fullyQualifiedName: `${report.target}#${outcome.tool}`, kind: 'function' }];
  const source = outcome.tool === undefined ? undefined : report.sources?.[outcome.tool];
  const physicalLocation = source
    ? { artifactLocation: { uri: source.file, uriBaseId: 'SRCROOT' }, region: { startLine: source.line } }
    : { artifactLocation: { uri: artifactUri(report) } };
  return { physicalLocation, ...(logical.length > 0 ? { logicalLocations: logical } : {}) };
}

/**
 * The report as a SARIF 2.1.0 log for code-scanning UIs: one rule per
 * check of {@link SCAN_CHECKS} and per other check the report holds (its invariant in `properties`), one result per outcome (`kind`
 * pass, fail, notApplicable or review; level `error` for failures, else
 * `none`), located at the tool's definition or at the server URL.
 */
export function renderSarif(report: ScanReport): Record<string, unknown> {
  const known = SCAN_CHECKS.map((check) => ({
    id: check.id,
    invariant: check.invariant,
    title: check.title,
    does: check.does,
  }));
  const own = report.outcomes
    .filter(
      (o, i, all) => !known.some((k) => k.id === o.check) && all.findIndex((x) => x.check === o.check) === i,
    )
    .map((o) => ({ id: o.check, invariant: o.invariant, title: o.title, does: o.title }));
  const rules = [...known, ...own].map((check) => ({
    id: check.id,
    name: check.title,
    shortDescription: { text: `${check.invariant} ${check.title}` },
    fullDescription: { text: check.does },
    defaultConfiguration: { level: 'error' },
    properties: { invariant: check.invariant, tags: ['mcp', 'security', check.invariant] },
  }));
  const results = report.outcomes.map((outcome) => ({
    ruleId: outcome.check,
    ruleIndex: rules.findIndex((rule) => rule.id === outcome.check),
    kind: KINDS[outcome.verdict],
    level: outcome.verdict === 'fail' ? 'error' : 'none',
    message: { text: messageOf(outcome) },
    locations: [locationOf(report, outcome)],
    properties: {
      verdict: outcome.verdict,
      ...(outcome.era ? { era: outcome.era } : {}),
      findings: outcome.findings,
      evidence: outcome.evidence,
    },
  }));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'gatehouse scan', semanticVersion: '0.1.0', rules } },
        ...(report.sourceRoot
          ? {
              originalUriBaseIds: {
                SRCROOT: {
                  uri: `${new URL(`file://${report.sourceRoot.replace(/\\/g, '/')}`).href.replace(/\/?$/, '/')}`,
                },
              },
            }
          : {}),
        results,
        properties: { target: report.target, eras: report.eras, mode: report.mode },
      },
    ],
  };
}
