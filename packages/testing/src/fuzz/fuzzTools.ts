import fc from 'fast-check';
import { resolveArgs, synthesizeArgs } from '../contract/args.js';
import { type ContractClient, type ContractReply, connectClient } from '../contract/client.js';
import {
  errorCode,
  errorEnvelopeFindings,
  OutputSchemas,
  resultShapeFindings,
} from '../contract/envelope.js';
import type { ContractFixture, ContractHost } from '../contract/fixture.js';
import { changesBetween, type EffectMark, markEffects } from '../contract/observe.js';
import { type ContractPlan, type ContractTool, planContract } from '../contract/plan.js';
import { adversarialExamples, argumentsFor } from './arbitraries.js';

/** Options of {@link fuzzTool} and {@link fuzzContract}. */
export interface FuzzOptions {
  /** Random argument sets per tool, after the fixed adversarial ones; default 60. */
  readonly numRuns?: number;
  /**
   * Seed, to replay a failure; default the seed fast-check is configured with
   * (`fc.configureGlobal`, e.g. from `FC_SEED`), else random. Reported with each failure.
   */
  readonly seed?: number;
  /** Only these tools. */
  readonly tools?: readonly string[];
}

/** What fuzzing one tool found. */
export interface FuzzReport {
  readonly tool: string;
  readonly runs: number;
  readonly seed: number;
  /** Problems of the smallest failing argument set; empty when every run was fine. */
  readonly findings: readonly string[];
  /** The smallest failing arguments, when a run failed. */
  readonly counterexample?: unknown;
}

/** JSON-RPC errors that are a well-formed refusal of malformed params, not a crash. */
const REFUSAL_CODES = new Set([-32600, -32602]);

/**
 * What is wrong with one fuzzed reply: a transport failure, an HTTP status
 * other than 200, a JSON-RPC internal error, an `internal_error` result (the
 * server crashed inside), or a result whose envelope is malformed (I18, I19).
 */
export function replyFindings(tool: ContractTool, reply: ContractReply, schemas: OutputSchemas): string[] {
  if (reply.failure) return [`transport failure: ${reply.failure}`];
  if (reply.status !== 200) return [`HTTP ${reply.status}`];
  if (reply.rpcError) {
    return REFUSAL_CODES.has(reply.rpcError.code)
      ? []
      : [`JSON-RPC error ${reply.rpcError.code}: ${reply.rpcError.message}`];
  }
  if (!reply.result) return ['no JSON-RPC response'];
  const findings = resultShapeFindings(tool.name, reply.result, tool.outputSchema, schemas);
  if (reply.result.isError === true) {
    findings.push(...errorEnvelopeFindings(reply.result));
    if (errorCode(reply.result) === 'internal_error')
      findings.push('the server failed unexpectedly (internal_error)');
  }
  return findings;
}

const refused = (reply: ContractReply) =>
  reply.status !== 200 || reply.rpcError !== undefined || reply.result?.isError === true;

/** The host's effects before the next fuzzed call: read once, then carried from one call to the next. */
interface EffectCursor {
  mark: EffectMark;
}

/**
 * One fuzzed call. The effects are read once per call, after it: a refused
 * call is compared with the state before it (the previous call's reading),
 * and the reading becomes the state before the next call.
 */
async function runOne(
  host: ContractHost,
  client: ContractClient,
  tool: ContractTool,
  args: unknown,
  context: { readonly schemas: OutputSchemas; readonly cursor: EffectCursor },
) {
  const protoKeys = Object.getOwnPropertyNames(Object.prototype).length;
  const reply = await client.call(tool.name, args);
  const findings = replyFindings(tool, reply, context.schemas);
  const after = await markEffects(host);
  if (refused(reply))
    for (const change of changesBetween(context.cursor.mark, after))
      findings.push(`${change} by a refused call`);
  context.cursor.mark = after;
  if (Object.getOwnPropertyNames(Object.prototype).length !== protoKeys)
    findings.push('Object.prototype gained a property');
  return findings;
}

/**
 * Fuzzes one tool of a plan with fast-check: random and adversarial
 * arguments generated from its input schema. Every reply must be a
 * well-formed result or `Error:` text (no transport error, no 5xx, no
 * internal error), and a refused call must change no row and send nothing.
 * A failure is shrunk to the smallest failing arguments.
 */
export async function fuzzTool(
  plan: ContractPlan,
  tool: ContractTool,
  options: FuzzOptions = {},
): Promise<FuzzReport> {
  const seed = options.seed ?? fc.readConfigureGlobal().seed ?? Math.floor(Math.random() * 2 ** 31);
  const numRuns = options.numRuns ?? 60;
  const host = await plan.fixture.start();
  const client = await connectClient(
    plan.fixture.client,
    { endpoint: host.endpoint, era: plan.era },
    await host.mint(host.home),
  );
  const context = { schemas: new OutputSchemas(), cursor: { mark: await markEffects(host) } };
  let failure: readonly string[] = [];
  try {
    const property = fc.asyncProperty(argumentsFor(tool.inputSchema), async (args) => {
      const findings = await runOne(host, client, tool, args, context);
      if (findings.length > 0) failure = findings;
      return findings.length === 0;
    });
    const base = (await resolveArgs(tool.fixture.sample, host)) ?? synthesizeArgs(tool.inputSchema);
    const examples = adversarialExamples(tool.inputSchema, base).map((args): [unknown] => [args]);
    const details = await fc.check(property, { numRuns: numRuns + examples.length, seed, examples });
    if (!details.failed) return { tool: tool.name, runs: details.numRuns, seed, findings: [] };
    const error =
      details.errorInstance instanceof Error ? [`the property threw: ${details.errorInstance.message}`] : [];
    return {
      tool: tool.name,
      runs: details.numRuns,
      seed,
      findings: failure.length > 0 ? failure : error,
      counterexample: details.counterexample?.[0],
    };
  } finally {
    await client.close();
    await host.close();
  }
}

/** Fuzzes every tool of the fixture (or `options.tools`), one fresh host per tool. */
export async function fuzzContract<H extends ContractHost>(
  fixture: ContractFixture<H>,
  options: FuzzOptions & { readonly plan?: ContractPlan } = {},
): Promise<readonly FuzzReport[]> {
  const plan = options.plan ?? (await planContract(fixture));
  const reports: FuzzReport[] = [];
  for (const tool of plan.tools) {
    if (options.tools && !options.tools.includes(tool.name)) continue;
    reports.push(await fuzzTool(plan, tool, options));
  }
  return reports;
}
