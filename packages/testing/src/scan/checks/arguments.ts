import { DEFAULT_TENANT_LIKE_NAMES } from '@gatehousejs/core';
import { UNKNOWN_ARGUMENT, unknownArgumentFindings } from '../../contract/checks/arguments.js';
import { propertyNames, tenantLikeProperties } from '../../contract/checks/tenancy.js';
import { defineScanCheck, type Judged, perTool, undetermined } from '../check.js';
import type { ScanContext } from '../context.js';
import { describeOutcome, type Exchange, isRateLimited, refusalText, wasRefused } from '../exchange.js';
import type { ScanTool } from '../types.js';

/** The probe both argument checks judge: one call carrying an unknown and a tenant-like field. */
interface ArgumentProbe {
  readonly exchange: Exchange;
  readonly tenantField: string;
  readonly why: string;
}

/**
 * Sends `tool` arguments a correct server refuses before the tool runs
 * (required ones left out, or one of the wrong type), plus `gh_unknown_field`
 * and a tenant-like field; only with `--allow-calls` (and the fixture's valid
 * arguments) when the tool declares nothing a call could get wrong.
 */
function argumentProbe(ctx: ScanContext, tool: ScanTool): Promise<ArgumentProbe | { reason: string }> {
  return ctx.memo(`arguments:${tool.name}`, async () => {
    const declared = new Set(propertyNames(tool.inputSchema));
    const tenantField = DEFAULT_TENANT_LIKE_NAMES.find((name) => !declared.has(name)) ?? 'tenant_id';
    let base = ctx.invalidBase(tool);
    if (!base) {
      const valid = ctx.validArgs(tool);
      if ('reason' in valid) {
        return {
          reason: `${tool.name} declares no argument a call could get wrong, so only a valid call could carry the probe: ${valid.reason}`,
        };
      }
      base = { args: valid.args, why: "with the fixture's arguments" };
    }
    const args = { ...base.args, [UNKNOWN_ARGUMENT]: 'scan probe', [tenantField]: 'gh-scan-other-tenant' };
    const exchange = await ctx.call(tool.name, args, {
      note: `(${base.why}, plus ${UNKNOWN_ARGUMENT} and ${tenantField})`,
    });
    return { exchange, tenantField, why: base.why };
  });
}

/** The verdict for a probe that could not judge arguments (rate-limited, no answer), or undefined. */
function unjudgeable(ctx: ScanContext, probe: ArgumentProbe): Judged | undefined {
  const evidence = [ctx.evidence(probe.exchange)];
  if (isRateLimited(probe.exchange))
    return undetermined('the call was rate-limited before its arguments were judged', { evidence });
  if (probe.exchange.failure !== undefined)
    return { evidence, findings: [`the call got ${describeOutcome(probe.exchange)}`] };
  return undefined;
}

/** I14: an unknown argument is refused, named, with the list of allowed ones. */
export const unknownArgumentsCheck = defineScanCheck({
  id: 'I14.unknown-arguments',
  title: 'unknown arguments',
  does: `calls each tool with arguments it must refuse plus ${UNKNOWN_ARGUMENT}: the refusal must name the field and list every allowed argument`,
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      const probe = await argumentProbe(ctx, tool);
      if ('reason' in probe) return undetermined(probe.reason);
      const early = unjudgeable(ctx, probe);
      if (early) return early;
      const evidence = [ctx.evidence(probe.exchange)];
      if (!wasRefused(probe.exchange)) {
        return {
          evidence,
          findings: [
            `a call with ${UNKNOWN_ARGUMENT} ran: it was answered with ${describeOutcome(probe.exchange)}`,
          ],
        };
      }
      const findings = unknownArgumentFindings(
        refusalText(probe.exchange),
        tool.inputSchema,
        UNKNOWN_ARGUMENT,
      );
      if (findings.includes('the refusal does not name the unknown field')) {
        findings.push('unknown fields look stripped or ignored instead of refused');
      }
      return { evidence, findings };
    }),
});

/** I3: no tool declares a tenant-like argument, and one sent is refused by name. */
export const tenantArgumentsCheck = defineScanCheck({
  id: 'I3.tenant-arguments',
  title: 'tenant-like arguments',
  does: 'reads each input schema for tenant-like arguments (tenant_id, workspace_id, org_id, …) and sends one undeclared: it must be refused by name',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      const declared = tenantLikeProperties(tool.inputSchema).map(
        (name) =>
          `the input schema declares the tenant-like argument "${name}": the tenant must come from the credential`,
      );
      const probe = await argumentProbe(ctx, tool);
      if ('reason' in probe) return declared.length > 0 ? { findings: declared } : undetermined(probe.reason);
      const early = unjudgeable(ctx, probe);
      if (early) return declared.length > 0 ? { ...early, verdict: 'fail', findings: declared } : early;
      const evidence = [ctx.evidence(probe.exchange)];
      const findings = [...declared];
      if (!wasRefused(probe.exchange)) {
        findings.push(
          `a call naming ${probe.tenantField} ran: it was answered with ${describeOutcome(probe.exchange)}`,
        );
      } else if (!refusalText(probe.exchange).includes(probe.tenantField)) {
        findings.push(
          `the refusal does not name ${probe.tenantField}: a tenant-like argument may be ignored or used`,
        );
      }
      return { evidence, findings };
    }),
});
