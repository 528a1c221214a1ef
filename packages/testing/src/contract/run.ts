import { resolveArgs, synthesizeArgs } from './args.js';
import { CONTRACT_CHECKS } from './catalog.js';
import type { CheckContext, ContractCheck, Selection } from './check.js';
import { type ContractClient, connectClient } from './client.js';
import type { ContractFixture, ContractHost } from './fixture.js';
import { ResultLedger } from './ledger.js';
import { effectsSince, markEffects } from './observe.js';
import { type ContractPlan, type ContractTool, planContract } from './plan.js';

/** The outcome of one case of one check. */
export interface CheckOutcome {
  /** The check id, e.g. `I3.foreign-ids`. */
  readonly check: string;
  readonly invariant: string;
  readonly tool: string | undefined;
  /** `<invariant> <title> › <sentence>`, as registered in vitest. */
  readonly name: string;
  readonly status: 'passed' | 'failed' | 'skipped';
  readonly findings: readonly string[];
  readonly skipReason?: string;
}

/** One case of a plan: a check, the tool (per-tool checks) and whether it runs. */
export interface ContractCase {
  readonly check: ContractCheck;
  readonly tool: ContractTool | undefined;
  readonly selection: Exclude<Selection, 'not-applicable'>;
  readonly name: string;
}

/** The cases `checks` yield for `plan`: one per tool or one per server, applicable ones only. */
export function casesOf(plan: ContractPlan, checks: readonly ContractCheck[]): ContractCase[] {
  const cases: ContractCase[] = [];
  for (const check of checks) {
    const targets = check.scope === 'tool' ? plan.tools : [undefined];
    for (const tool of targets) {
      const selection = check.select(plan, tool);
      if (selection === 'not-applicable') continue;
      const name = `${check.invariant} ${check.title} › ${check.sentence(tool)}`;
      cases.push({ check, tool, selection, name });
    }
  }
  return cases;
}

/**
 * One case per check: the first that runs (a per-tool check on the first tool
 * it applies to), else the first skipped one, so the skip reason still shows.
 */
export function smokeCases(cases: readonly ContractCase[]): ContractCase[] {
  const chosen = new Map<ContractCheck, ContractCase>();
  for (const item of cases) {
    const held = chosen.get(item.check);
    if (!held || (held.selection !== 'run' && item.selection === 'run')) chosen.set(item.check, item);
  }
  return cases.filter((item) => chosen.get(item.check) === item);
}

function contextFor(plan: ContractPlan, host: ContractHost, ledger: ResultLedger, clients: ContractClient[]) {
  const target = {
    endpoint: host.endpoint,
    era: plan.era,
    listener: (tool: string, args: unknown, reply: { result?: Readonly<Record<string, unknown>> }) => {
      if (reply.result) ledger.record({ tool, args, result: reply.result });
    },
  };
  const client = async (token: string | undefined, headers?: Record<string, string>) => {
    const opened = await connectClient(plan.fixture.client, target, token, headers);
    clients.push(opened);
    return opened;
  };
  const context: CheckContext = {
    plan,
    host,
    ledger,
    client,
    as: async (actor, grant) => client(await host.mint(actor, grant)),
    args: (source) => resolveArgs(source, host),
    sample: async (tool) =>
      (await resolveArgs(tool.fixture.sample, host)) ?? synthesizeArgs(tool.inputSchema),
    mark: () => markEffects(host),
    since: (mark) => effectsSince(host, mark),
  };
  return context;
}

/**
 * Runs one case against a freshly started host and closes it afterwards.
 * A check that throws (a fixture method failing, a host that hangs) fails
 * with the error as its finding.
 */
export async function runCase(
  plan: ContractPlan,
  item: ContractCase,
  ledger: ResultLedger = new ResultLedger(),
): Promise<CheckOutcome> {
  const base = {
    check: item.check.id,
    invariant: item.check.invariant,
    tool: item.tool?.name,
    name: item.name,
  };
  if (item.selection !== 'run') {
    return { ...base, status: 'skipped', findings: [], skipReason: item.selection.skip };
  }
  const clients: ContractClient[] = [];
  let findings: readonly string[];
  const host = await plan.fixture.start();
  try {
    findings = await item.check.run(contextFor(plan, host, ledger, clients), item.tool);
  } catch (error) {
    findings = [`the check could not complete: ${error instanceof Error ? error.message : String(error)}`];
  } finally {
    await Promise.allSettled(clients.map((c) => c.close()));
    await host.close();
  }
  return { ...base, status: findings.length > 0 ? 'failed' : 'passed', findings };
}

/** Options of {@link runContractCheck} and {@link runContract}. */
export interface RunContractOptions {
  /** Only these tools (per-tool checks). */
  readonly tools?: readonly string[];
  /** A plan made earlier with `planContract`, to skip discovery. */
  readonly plan?: ContractPlan;
  /** The checks to run; default {@link CONTRACT_CHECKS}. */
  readonly checks?: readonly ContractCheck[];
}

/**
 * Runs every case of the check `id` (e.g. `I3.foreign-ids`) against the
 * fixture, outside vitest. Throws for an unknown id. Use it to prove a check
 * fails against a deliberately broken host.
 *
 * @example
 * const outcomes = await runContractCheck(brokenFixture, 'I3.foreign-ids');
 * expect(outcomes.some((o) => o.status === 'failed')).toBe(true);
 */
export async function runContractCheck<H extends ContractHost>(
  fixture: ContractFixture<H>,
  id: string,
  options: RunContractOptions = {},
): Promise<readonly CheckOutcome[]> {
  const check = (options.checks ?? CONTRACT_CHECKS).find((c) => c.id === id);
  if (!check) throw new TypeError(`unknown contract check ${JSON.stringify(id)}`);
  return runContract(fixture, { ...options, checks: [check] });
}

/** Runs the contract checks (default: all) against the fixture, outside vitest, one case after another. */
export async function runContract<H extends ContractHost>(
  fixture: ContractFixture<H>,
  options: RunContractOptions = {},
): Promise<readonly CheckOutcome[]> {
  const plan = options.plan ?? (await planContract(fixture));
  const ledger = new ResultLedger();
  const outcomes: CheckOutcome[] = [];
  for (const item of casesOf(plan, options.checks ?? CONTRACT_CHECKS)) {
    if (options.tools && item.tool && !options.tools.includes(item.tool.name)) continue;
    outcomes.push(await runCase(plan, item, ledger));
  }
  return outcomes;
}

/** A readable report of failed outcomes, one block per case. */
export function formatOutcomes(outcomes: readonly CheckOutcome[]): string {
  return outcomes
    .filter((o) => o.status === 'failed')
    .map((o) => `${o.name}\n${o.findings.map((f) => `  - ${f}`).join('\n')}`)
    .join('\n');
}
