import { leakFindings } from '../../contract/envelope.js';
import { MCP_META_KEYS } from '../../internal/envelope.js';
import type { McpEra } from '../../types.js';
import { defineScanCheck, type Judged, undetermined } from '../check.js';
import type { ScanContext } from '../context.js';
import { describeOutcome, type Exchange, refusalText } from '../exchange.js';
import type { ScanSession } from '../session.js';

/** A long marker the scan sends where an answer might repeat it; an answer holding this much of it echoed it. */
export const ECHO_PROBE = `gh-scan-echo-${'Q'.repeat(4096)}`;
const ECHO_SEEN = 'Q'.repeat(512);
/** How long a stdio server may stay silent on a line it cannot read before that counts as no answer. */
const SILENCE_MS = 1000;
/** Most characters a refusal of a malformed request may take. */
export const SHORT_ANSWER = 2048;

interface Probe {
  readonly label: string;
  readonly send: (session: ScanSession) => Promise<Exchange>;
  /** A refusal must come at the protocol level (HTTP 4xx or a JSON-RPC error), not as a tool result. */
  readonly protocolLevel?: boolean;
}

const listsTools = (exchange: Exchange) =>
  exchange.messages.some((m) => Array.isArray((m.result as { tools?: unknown } | undefined)?.tools));

function probesFor(ctx: ScanContext, era: McpEra): Probe[] {
  const tool = ctx.tools[0]?.name;
  const probes: Probe[] = [
    {
      label: 'a JSON-RPC batch of two tools/list requests',
      send: (s) => {
        const one = s.prepare('tools/list', {}, { id: 'gh-scan-batch-1' });
        const two = s.prepare('tools/list', {}, { id: 'gh-scan-batch-2' });
        return s.raw('a batch [tools/list, tools/list]', [one.body, two.body], {
          headers: one.headers,
          waitMs: SILENCE_MS,
        });
      },
    },
    {
      label: 'a body that is not JSON',
      send: (s) => {
        const { headers } = s.prepare('tools/list');
        const text = `{"jsonrpc":"2.0","id":"gh-scan-parse","method":"tools/list","params":{"q":"${ECHO_PROBE}"`;
        return s.raw('truncated JSON (a 4 KiB string, no closing braces)', undefined, {
          rawText: text,
          headers,
          waitMs: SILENCE_MS,
        });
      },
    },
    {
      label: 'tools/call with malformed params',
      send: (s) => {
        const prepared = s.prepare('tools/call', { name: 'gh_scan_probe', arguments: {} });
        const params = { ...prepared.body.params, name: 42, arguments: ECHO_PROBE };
        return s.raw(
          'tools/call with name 42 and arguments a 4 KiB string',
          { ...prepared.body, params },
          { headers: prepared.headers },
        );
      },
    },
    {
      label: 'a 4 KiB request id',
      send: (s) => {
        const prepared = s.prepare('tools/list', {}, { id: ECHO_PROBE });
        return s.raw('tools/list with a 4 KiB string id', prepared.body, { headers: prepared.headers });
      },
    },
    {
      label: 'an unknown method',
      send: (s) => s.request('gh_scan/unknown_method', {}, { id: 'gh-scan-unknown' }),
    },
  ];
  if (ctx.settings.endpoint.transport === 'http' && era === '2026-07-28') {
    probes.push(
      {
        label: 'an Mcp-Method header that differs from the body',
        protocolLevel: true,
        send: (s) => {
          const prepared = s.prepare('tools/list');
          return s.raw('tools/list with header Mcp-Method: tools/call', prepared.body, {
            headers: { ...prepared.headers, 'mcp-method': 'tools/call' },
          });
        },
      },
      {
        label: 'a _meta protocol version that differs from the header',
        protocolLevel: true,
        send: (s) =>
          s.request(
            'tools/list',
            {},
            {
              meta: { [MCP_META_KEYS.protocolVersion]: '2025-11-25' },
              note: 'with _meta protocolVersion 2025-11-25 under header 2026-07-28',
            },
          ),
      },
    );
    if (tool !== undefined) {
      probes.push({
        label: 'an Mcp-Name header that differs from params.name',
        protocolLevel: true,
        send: (s) => {
          const prepared = s.prepare('tools/call', { name: tool, arguments: {} });
          return s.raw(`tools/call ${tool} with header Mcp-Name: gh_scan_other_tool`, prepared.body, {
            headers: { ...prepared.headers, 'mcp-name': 'gh_scan_other_tool' },
          });
        },
      });
    }
  }
  if (ctx.settings.endpoint.transport === 'http' && era === '2025-11-25') {
    probes.push({
      label: 'an unsupported MCP-Protocol-Version header',
      protocolLevel: true,
      send: (s) => {
        const prepared = s.prepare('tools/list');
        return s.raw('tools/list with header MCP-Protocol-Version: 1999-01-01', prepared.body, {
          headers: { ...prepared.headers, 'mcp-protocol-version': '1999-01-01' },
        });
      },
    });
  }
  return probes;
}

/** What is wrong with the answer to one malformed request. */
function judgeProbe(probe: Probe, answer: Exchange): string[] {
  const { label } = probe;
  if (answer.failure !== undefined) return [`${label} got ${describeOutcome(answer)}`];
  const findings: string[] = [];
  const refusedAtProtocol = (answer.status >= 400 && answer.status < 500) || answer.error !== undefined;
  const refused = refusedAtProtocol || (!probe.protocolLevel && answer.result?.isError === true);
  if (listsTools(answer) || !refused)
    findings.push(`${label} was served (${describeOutcome(answer)}), not refused`);
  if (answer.status >= 500) findings.push(`${label} was answered with HTTP ${answer.status}`);
  if (answer.text.includes(ECHO_SEEN))
    findings.push(`the answer to ${label} echoes the request's 4 KiB string`);
  else if (answer.text.length > SHORT_ANSWER)
    findings.push(`the answer to ${label} is ${answer.text.length} characters long`);
  findings.push(...leakFindings(refusalText(answer)).map((f) => `${label}: ${f}`));
  return findings;
}

/** I14: malformed requests are refused before any tool runs, with short errors that echo nothing whole. */
export const protocolHygieneCheck = defineScanCheck({
  id: 'I14.protocol-hygiene',
  title: 'protocol hygiene',
  does: 'sends a batch, a body that is not JSON, malformed tools/call params, a 4 KiB id, an unknown method and (per era) mismatched headers and _meta: each must be refused with a short error that echoes nothing whole',
  async run(ctx) {
    if (ctx.blocked !== undefined) return [undetermined(ctx.blocked)];
    const judged: Judged[] = [];
    for (const era of ctx.discovery.eras) {
      const session = await ctx.session(era);
      const findings: string[] = [];
      const failing: Exchange[] = [];
      const passing: Exchange[] = [];
      for (const probe of probesFor(ctx, era)) {
        const answer = await probe.send(session);
        const found = judgeProbe(probe, answer);
        findings.push(...found);
        (found.length > 0 ? failing : passing).push(answer);
      }
      judged.push({
        era,
        findings,
        evidence: [...failing, ...passing].slice(0, 4).map((e) => ctx.evidence(e)),
      });
    }
    return judged;
  },
});
