import type { ScanContext } from './context.js';
import { maskSecrets } from './exchange.js';
import type { Evidence, ScanOutcome, ScanTool, Verdict } from './types.js';

/** One check of `gatehouse scan`: what it sends, what it observes, the invariant it shows. */
export interface ScanCheck {
  /** Stable id, e.g. `I14.unknown-arguments`. */
  readonly id: string;
  /** The invariant it shows, e.g. `I14`. */
  readonly invariant: string;
  readonly title: string;
  /** What it sends and what passes, in one sentence (reports, SARIF rules, docs). */
  readonly does: string;
  /** Runs the check; one outcome for the server, per era or per tool. */
  run(ctx: ScanContext): Promise<readonly ScanOutcome[]>;
}

/** An outcome's fields a check decides. */
export interface Judged {
  readonly tool?: string;
  readonly era?: ScanOutcome['era'];
  readonly verdict?: Verdict;
  readonly reason?: string;
  readonly findings?: readonly string[];
  readonly evidence?: readonly Evidence[];
}

/** What a check is defined with. */
export interface ScanCheckSpec {
  readonly id: string;
  readonly title: string;
  readonly does: string;
  readonly run: (ctx: ScanContext) => Promise<readonly Judged[]>;
}

/**
 * The verdict of judged fields: the one given, else `fail` with findings and
 * `pass` without. A check that throws is `undetermined`, the error its reason.
 */
export function verdictOf(judged: Judged): Verdict {
  if (judged.verdict) return judged.verdict;
  return (judged.findings?.length ?? 0) > 0 ? 'fail' : 'pass';
}

/** Defines a scan check. */
export function defineScanCheck(spec: ScanCheckSpec): ScanCheck {
  const invariant = spec.id.split('.')[0] ?? spec.id;
  const outcome = (judged: Judged, secrets: readonly string[]): ScanOutcome => ({
    check: spec.id,
    invariant,
    title: spec.title,
    ...(judged.tool === undefined ? {} : { tool: judged.tool }),
    ...(judged.era === undefined ? {} : { era: judged.era }),
    verdict: verdictOf(judged),
    ...(judged.reason === undefined ? {} : { reason: maskSecrets(judged.reason, secrets) }),
    findings: (judged.findings ?? []).map((finding) => maskSecrets(finding, secrets)),
    evidence: (judged.evidence ?? []).slice(0, 4),
  });
  return Object.freeze({
    id: spec.id,
    invariant,
    title: spec.title,
    does: spec.does,
    async run(ctx: ScanContext) {
      try {
        return (await spec.run(ctx)).map((judged) => outcome(judged, ctx.secrets));
      } catch (error) {
        const reason = `the check could not complete: ${error instanceof Error ? error.message : String(error)}`;
        return [outcome({ verdict: 'undetermined', reason }, ctx.secrets)];
      }
    },
  });
}

/** Not applicable, with the reason. */
export const notApplicable = (reason: string, fields: Judged = {}): Judged => ({
  ...fields,
  verdict: 'not-applicable',
  reason,
});

/** Undetermined, with the reason. */
export const undetermined = (reason: string, fields: Judged = {}): Judged => ({
  ...fields,
  verdict: 'undetermined',
  reason,
});

/** One judged outcome per tool; a blocked scan makes each undetermined. */
export async function perTool(
  ctx: ScanContext,
  judge: (tool: ScanTool) => Promise<Judged> | Judged,
): Promise<Judged[]> {
  const blocked = ctx.blocked;
  if (blocked !== undefined) return [undetermined(blocked)];
  const judged: Judged[] = [];
  for (const tool of ctx.tools) judged.push({ tool: tool.name, ...(await judge(tool)) });
  return judged;
}
