import { UNKNOWN_ARGUMENT } from '../../contract/checks/arguments.js';
import { defineScanCheck, type Judged, perTool, undetermined } from '../check.js';
import type { ScanContext } from '../context.js';
import { describeOutcome, type Exchange, isRateLimited } from '../exchange.js';
import type { ScanSession } from '../session.js';
import type { ScanTool } from '../types.js';

/** The body a server must refuse unread (or, over stdio, answer boundedly): 8 MiB. */
export const BODY_PROBE_BYTES = 8 * 1024 * 1024;
/** The header a server must refuse: 32 KiB. */
export const HEADER_PROBE_BYTES = 32 * 1024;
/** How deep the nested argument goes. */
export const DEPTH_PROBE = 20_000;
const SHORT = 2048;

const listsTools = (exchange: Exchange) =>
  exchange.status === 200 &&
  exchange.messages.some((m) => Array.isArray((m.result as { tools?: unknown } | undefined)?.tools));

/** The tool the limit probes aim at: one with arguments to get wrong, hinted read-only first. */
function target(ctx: ScanContext): ScanTool | undefined {
  const usable = ctx.tools.filter((tool) => ctx.invalidBase(tool) !== undefined);
  return usable.find((tool) => tool.readOnly) ?? usable[0];
}

/** A tools/call body as text with `value` (JSON text) as the unknown argument's value. */
function callText(
  session: ScanSession,
  tool: ScanTool,
  base: Readonly<Record<string, unknown>>,
  value: string,
) {
  const marker = 'gh-scan-placeholder';
  const prepared = session.prepare('tools/call', {
    name: tool.name,
    arguments: { ...base, [UNKNOWN_ARGUMENT]: marker },
  });
  return { text: JSON.stringify(prepared.body).replace(`"${marker}"`, value), prepared };
}

/** Findings when the server does not answer a plain tools/list right after a probe. */
async function stillServing(
  ctx: ScanContext,
  label: string,
): Promise<{ findings: string[]; next: Exchange }> {
  const era = ctx.era ?? '2026-07-28';
  const next = await (await ctx.session(era)).request('tools/list', {}, { note: `(right after ${label})` });
  if (listsTools(next)) return { findings: [], next };
  ctx.drop(era); // a stdio process that ended is started again for the checks after this one
  return {
    findings: [`after ${label} the server did not answer tools/list (${describeOutcome(next)})`],
    next,
  };
}

/** Judges one probe's answer: bounded (refused or answered briefly) and without repeating the probe. */
function judgeBounded(label: string, answer: Exchange, http: boolean, mustRefuseUnread: boolean): string[] {
  if (answer.failure !== undefined) {
    return /ECONNRESET|EPIPE|socket hang up/i.test(answer.failure) && http
      ? []
      : [`${label} got ${describeOutcome(answer)}`];
  }
  const findings: string[] = [];
  if (mustRefuseUnread && http && (answer.status < 400 || answer.status >= 500)) {
    findings.push(
      `${label} was read whole and answered with ${describeOutcome(answer)}, not refused (413) unread`,
    );
  }
  if (answer.status >= 500) findings.push(`${label} was answered with HTTP ${answer.status}`);
  if (answer.text.length > SHORT)
    findings.push(`the answer to ${label} is ${answer.text.length} characters long`);
  return findings;
}

/** I14: an 8 MiB body, a 32 KiB header and a 20 000-deep argument are refused boundedly, and the server serves on. */
export const limitsCheck = defineScanCheck({
  id: 'I14.limits',
  title: 'body, header and depth limits',
  does: 'sends an 8 MiB body, a 32 KiB header (HTTP) and an argument nested 20 000 deep: each must get a short refusal (the body a 413 unread), and the next tools/list must be answered',
  async run(ctx) {
    if (ctx.blocked !== undefined) return [undetermined(ctx.blocked)];
    const tool = target(ctx);
    const base = tool ? ctx.invalidBase(tool) : undefined;
    if (!tool || !base)
      return [
        undetermined(
          'no tool declares an argument a call could get wrong, so no probe is sure to be refused',
        ),
      ];
    const http = ctx.settings.endpoint.transport === 'http';
    const era = ctx.era ?? '2026-07-28';
    const findings: string[] = [];
    const evidence: Exchange[] = [];
    const run = async (label: string, send: (s: ScanSession) => Promise<Exchange>, unread: boolean) => {
      const answer = await send(await ctx.session(era));
      ctx.record({ tool: tool.name, args: label, exchange: answer, valid: false });
      const found = isRateLimited(answer) ? [] : judgeBounded(label, answer, http, unread);
      const after = await stillServing(ctx, label);
      findings.push(...found, ...after.findings);
      evidence.push(answer);
      if (after.findings.length > 0) evidence.push(after.next);
    };
    await run(
      `an ${BODY_PROBE_BYTES / 1024 / 1024} MiB body`,
      (s) => {
        const { text, prepared } = callText(s, tool, base.args, JSON.stringify('Q'.repeat(BODY_PROBE_BYTES)));
        return s.raw(`tools/call ${tool.name} (${base.why}) with an 8 MiB ${UNKNOWN_ARGUMENT}`, undefined, {
          rawText: text,
          headers: prepared.headers,
        });
      },
      true,
    );
    if (http) {
      await run(
        `a ${HEADER_PROBE_BYTES / 1024} KiB header`,
        (s) =>
          s.request(
            'tools/list',
            {},
            {
              headers: { 'x-gh-scan-padding': 'Q'.repeat(HEADER_PROBE_BYTES) },
              note: 'with a 32 KiB X-Gh-Scan-Padding header',
            },
          ),
        true,
      );
    }
    await run(
      `an argument nested ${DEPTH_PROBE} deep`,
      (s) => {
        const { text, prepared } = callText(
          s,
          tool,
          base.args,
          `${'['.repeat(DEPTH_PROBE)}${']'.repeat(DEPTH_PROBE)}`,
        );
        return s.raw(
          `tools/call ${tool.name} (${base.why}) with ${UNKNOWN_ARGUMENT} nested ${DEPTH_PROBE} arrays deep`,
          undefined,
          { rawText: text, headers: prepared.headers },
        );
      },
      false,
    );
    const judged: Judged = {
      tool: tool.name,
      findings,
      evidence: evidence.slice(0, 4).map((e) => ctx.evidence(e)),
    };
    return [judged];
  },
});

/** I7: calls to a tool that may write are rate-limited; the scan sends refused calls until one says so. */
export const rateLimitCheck = defineScanCheck({
  id: 'I7.rate-limit',
  title: 'rate limits on writes',
  does: 'sends each tool not hinted read-only calls it must refuse, up to --rate-probe of them: one must be answered as rate-limited (429 or a rate_limited error)',
  run: (ctx) =>
    perTool(ctx, async (tool) => {
      if (tool.readOnly) return { verdict: 'not-applicable', reason: 'the tool is hinted read-only' };
      const base = ctx.invalidBase(tool);
      if (!base)
        return undetermined(
          'the tool declares no argument a call could get wrong; the scan sends no valid call to count',
        );
      const era = ctx.era ?? '2026-07-28';
      const session = await ctx.session(era);
      let last: Exchange | undefined;
      for (let sent = 0; sent < ctx.settings.rateProbe; sent += 4) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(4, ctx.settings.rateProbe - sent) }, () =>
            session.request(
              'tools/call',
              { name: tool.name, arguments: base.args },
              { note: `(${base.why})` },
            ),
          ),
        );
        const limited = batch.find(isRateLimited);
        if (limited) return { evidence: [ctx.evidence(limited)] };
        last = batch.at(-1);
        if (batch.some((e) => e.failure !== undefined)) break;
      }
      return undetermined(
        `no refusal said rate-limited within ${ctx.settings.rateProbe} refused calls; a limit may sit behind validation, which only valid calls reach`,
        { evidence: last ? [ctx.evidence(last)] : [] },
      );
    }),
});
