import { describe, expect, it } from 'vitest';
import { type FuzzOptions, type FuzzReport, fuzzTool } from '../fuzz/fuzzTools.js';
import { CONTRACT_CHECKS } from './catalog.js';
import type { ContractCheck } from './check.js';
import type { ContractFixture, ContractHost } from './fixture.js';
import { ResultLedger } from './ledger.js';
import type { ContractPlan, ContractTool } from './plan.js';
import { planContract } from './plan.js';
import { type ContractCase, casesOf, runCase, smokeCases } from './run.js';

/** Options of {@link describeContract}. */
export interface DescribeContractOptions {
  /** The checks to register; default {@link CONTRACT_CHECKS}. */
  readonly checks?: readonly ContractCheck[];
  /** Fuzzing per tool (`I14 fuzzed arguments`); `false` turns it off. Default 60 runs per tool. */
  readonly fuzz?: FuzzOptions | false;
  /** Timeout of each case in ms; default 60 000. */
  readonly timeoutMs?: number;
  /**
   * `full` (default): every check on every tool it applies to. `smoke`: each
   * check once, on the first tool it applies to, and fuzzing of one tool per
   * effect class; for extra client or transport combinations beside one full run.
   */
  readonly coverage?: 'full' | 'smoke';
}

const clip = (value: unknown) => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 400 ? `${text.slice(0, 400)}… (${text.length} characters)` : text;
};

/** A fuzz report as findings: the problems, the smallest failing arguments and the seed to replay. */
export function fuzzFindings(report: FuzzReport): string[] {
  if (report.findings.length === 0) return [];
  return [
    ...report.findings,
    `arguments: ${clip(report.counterexample)}`,
    `replay with FC_SEED=${report.seed} (or fuzz: { seed: ${report.seed} })`,
  ];
}

/** The tools to fuzz: the fuzz option's list, and under smoke coverage the first tool of each effect class. */
function fuzzTargets(plan: ContractPlan, fuzz: FuzzOptions, smoke: boolean): ContractTool[] {
  const listed = plan.tools.filter((tool) => !fuzz.tools || fuzz.tools.includes(tool.name));
  if (!smoke) return listed;
  return listed.filter((tool, i) => listed.findIndex((t) => t.effect === tool.effect) === i);
}

function groupByTitle(cases: readonly ContractCase[]): Map<string, ContractCase[]> {
  const groups = new Map<string, ContractCase[]>();
  for (const item of cases) {
    const title = `${item.check.invariant} ${item.check.title}`;
    groups.set(title, [...(groups.get(title) ?? []), item]);
  }
  return groups;
}

/**
 * Registers the contract suite for a host into vitest: one `describe` per
 * invariant check (`I14 unknown arguments`), one `it` per discovered tool
 * (`update_note refuses an extra field with the allowed list and writes
 * nothing`) or per server. Tools come from `tools/list` at collection time, so
 * a new tool is covered without new test code. Cases whose fixture data or
 * host feature is missing are reported as skipped, with the reason. Each case
 * starts a fresh host and fails with the findings it observed.
 *
 * @example
 * describeContract({ name: 'notes', start: startNotesHost, tools: { get_note: { sample: { id: 'n1' } } } });
 */
export function describeContract<H extends ContractHost>(
  fixture: ContractFixture<H>,
  options: DescribeContractOptions = {},
): void {
  const timeout = options.timeoutMs ?? 60_000;
  describe(`contract: ${fixture.name}`, async () => {
    const plan = await planContract(fixture);
    const ledger = new ResultLedger();
    if (plan.unlistedFixtureTools.length > 0) {
      it('describes only tools that tools/list shows', () => {
        expect(plan.unlistedFixtureTools, 'fixture tools missing from tools/list').toEqual([]);
      });
    }
    const smoke = options.coverage === 'smoke';
    const all = casesOf(plan, options.checks ?? CONTRACT_CHECKS);
    const cases = smoke ? smokeCases(all) : all;
    const groups = [...groupByTitle(cases)];
    const last = groups.filter(([, items]) =>
      items.some((i) => i.check.invariant === 'I18' || i.check.invariant === 'I19'),
    );
    const first = groups.filter((group) => !last.includes(group));
    for (const [title, items] of first) registerGroup(title, items);
    if (options.fuzz !== false) {
      const fuzz = options.fuzz ?? {};
      describe('I14 fuzzed arguments', () => {
        for (const tool of fuzzTargets(plan, fuzz, smoke)) {
          const sentence = `${tool.name} answers random and adversarial arguments with well-formed results and writes nothing when refused`;
          it(sentence, { timeout: timeout * 2 }, async () => {
            expect(fuzzFindings(await fuzzTool(plan, tool, fuzz))).toEqual([]);
          });
        }
      });
    }
    for (const [title, items] of last) registerGroup(title, items);

    function registerGroup(title: string, items: readonly ContractCase[]) {
      describe(title, () => {
        for (const item of items) {
          it(item.check.sentence(item.tool), { timeout }, async (context) => {
            const outcome = await runCase(plan, item, ledger);
            if (outcome.status === 'skipped') {
              context.skip(outcome.skipReason);
              return;
            }
            expect(outcome.findings, outcome.name).toEqual([]);
          });
        }
      });
    }
  });
}
