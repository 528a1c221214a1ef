import { tamper } from '../../contract/checks/gate.js';
import type { McpEra } from '../../types.js';
import { defineScanCheck, type Judged, notApplicable, undetermined } from '../check.js';
import type { ScanContext } from '../context.js';
import { describeOutcome, type Exchange } from '../exchange.js';
import type { SessionAuth } from '../session.js';

const ERAS: readonly McpEra[] = ['2026-07-28', '2025-11-25'];

/** The eras to probe admission in: those spoken, else both (a server refusing every request speaks none yet). */
const admissionEras = (ctx: ScanContext): readonly McpEra[] =>
  ctx.discovery.eras.length > 0 ? ctx.discovery.eras : ERAS;

const listsTools = (exchange: Exchange) =>
  exchange.messages.some((m) => Array.isArray((m.result as { tools?: unknown } | undefined)?.tools));

/** The wrong credentials to send: none, the given one garbled, a malformed and a Basic header. */
function wrongCredentials(ctx: ScanContext): SessionAuth[] {
  const { endpoint } = ctx.settings;
  const given = endpoint.transport === 'http' ? endpoint.credential : {};
  const garbled = Object.fromEntries(Object.entries(given).map(([name, value]) => [name, tamper(value)]));
  return [
    'none',
    Object.keys(garbled).length > 0
      ? { label: 'the credential with one character changed', headers: garbled }
      : { label: 'a made-up bearer token', headers: { authorization: 'Bearer gh-scan-made-up-token-0000' } },
    { label: 'a malformed Authorization header', headers: { authorization: 'Bearer' } },
    { label: 'a Basic credential', headers: { authorization: `Basic ${btoa('scan:password')}` } },
  ];
}

/** Lists tools with `auth`; findings when anything but a 401 with a Bearer challenge came back. */
async function refusedWithout(ctx: ScanContext, era: McpEra, auth: SessionAuth) {
  const session = await ctx.open(era, auth);
  const listed = await session.request('tools/list');
  const label = auth === 'none' ? 'no credential' : typeof auth === 'string' ? auth : auth.label;
  const findings: string[] = [];
  if (listsTools(listed)) findings.push(`with ${label}, tools/list returned the tool list`);
  else if (listed.status !== 401)
    findings.push(`with ${label}, tools/list was answered with ${describeOutcome(listed)}, not 401`);
  else if (!/^\s*Bearer\b/i.test(listed.headers['www-authenticate'] ?? '')) {
    findings.push(`with ${label}, the 401 carries no WWW-Authenticate Bearer challenge`);
  }
  return { findings, exchange: listed };
}

/** I5: without the credential, or with a wrong one, the server answers 401 and lists nothing. */
export const authenticationCheck = defineScanCheck({
  id: 'I5.authentication',
  title: 'authentication',
  does: 'lists tools with no credential, the credential garbled, a malformed and a Basic header: each must be a 401 with a Bearer challenge and no tool list',
  async run(ctx) {
    if (ctx.settings.endpoint.transport === 'stdio') {
      return [notApplicable('stdio carries no credential: whoever starts the process holds it')];
    }
    const judged: Judged[] = [];
    for (const era of admissionEras(ctx)) {
      if (ctx.settings.credential === 'none' && ctx.discovery.eras.includes(era)) {
        const session = await ctx.open(era, 'none');
        const listed = await session.request('tools/list');
        const evidence = [ctx.evidence(listed)];
        judged.push(
          ctx.settings.public
            ? notApplicable('the server is declared public (--public): it answers without a credential', {
                era,
                evidence,
              })
            : {
                era,
                evidence,
                findings: ['the server answered without any credential (pass --public if that is intended)'],
              },
        );
        continue;
      }
      const probes = await Promise.all(wrongCredentials(ctx).map((auth) => refusedWithout(ctx, era, auth)));
      const failing = probes.filter((probe) => probe.findings.length > 0);
      judged.push({
        era,
        findings: probes.flatMap((probe) => probe.findings),
        evidence: (failing.length > 0 ? failing : probes)
          .slice(0, 2)
          .map((probe) => ctx.evidence(probe.exchange)),
      });
    }
    return judged;
  },
});

const METADATA = /\bresource_metadata="([^"]*)"/i;

/** True for an https URL, or http on a loopback host. */
function usableMetadataUrl(text: string): boolean {
  try {
    const url = new URL(text);
    const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
    return url.protocol === 'https:' || (url.protocol === 'http:' && loopback);
  } catch {
    return false;
  }
}

/** I21: the 401 names the server's OAuth protected-resource metadata (RFC 9728); the scan never fetches it. */
export const resourceMetadataCheck = defineScanCheck({
  id: 'I21.resource-metadata',
  title: 'resource metadata',
  does: 'lists tools with no credential: the 401 challenge must name resource_metadata, an https URL (never fetched)',
  async run(ctx) {
    if (ctx.settings.endpoint.transport === 'stdio') return [notApplicable('stdio has no HTTP challenge')];
    if (ctx.settings.public) return [notApplicable('the server is declared public (--public)')];
    const era = admissionEras(ctx)[0] ?? '2026-07-28';
    const session = await ctx.open(era, 'none');
    const listed = await session.request('tools/list');
    const evidence = [ctx.evidence(listed)];
    if (listed.status !== 401) {
      return [
        undetermined(
          `no 401 to observe: tools/list without a credential was answered with ${describeOutcome(listed)}`,
          { evidence },
        ),
      ];
    }
    const url = METADATA.exec(listed.headers['www-authenticate'] ?? '')?.[1];
    if (url === undefined) {
      return [
        {
          evidence,
          findings: [
            'the 401 challenge names no resource_metadata, so an OAuth client cannot find where to get a token',
          ],
        },
      ];
    }
    if (!usableMetadataUrl(url))
      return [{ evidence, findings: [`resource_metadata is not an https URL: ${url.slice(0, 120)}`] }];
    return [{ evidence }];
  },
});

const FOREIGN_ORIGIN = 'https://evil.example';
const FOREIGN_HOST = 'evil.example';

/** I5: a foreign Origin (403) and a foreign Host (a 4xx) are refused, even with a valid credential. */
export const originHostCheck = defineScanCheck({
  id: 'I5.origin-host',
  title: 'Origin and Host',
  does: `lists tools with the credential and Origin ${FOREIGN_ORIGIN}, then Host ${FOREIGN_HOST}: a 403 and a 4xx, no tool list`,
  async run(ctx) {
    if (ctx.settings.endpoint.transport === 'stdio') return [notApplicable('stdio has no Origin or Host')];
    if (ctx.blocked !== undefined) return [undetermined(ctx.blocked)];
    const judged: Judged[] = [];
    for (const era of ctx.discovery.eras) {
      const session = await ctx.session(era);
      const origin = await session.request(
        'tools/list',
        {},
        { headers: { origin: FOREIGN_ORIGIN }, note: `with Origin ${FOREIGN_ORIGIN}` },
      );
      const host = await session.request(
        'tools/list',
        {},
        { headers: { host: FOREIGN_HOST }, note: `with Host ${FOREIGN_HOST}` },
      );
      const findings: string[] = [];
      if (listsTools(origin) || origin.status !== 403) {
        findings.push(
          `a request from Origin ${FOREIGN_ORIGIN} was answered with ${describeOutcome(origin)}, not 403`,
        );
      }
      if (listsTools(host) || host.status < 400 || host.status >= 500) {
        findings.push(
          `a request for Host ${FOREIGN_HOST} was answered with ${describeOutcome(host)}, not refused (DNS rebinding)`,
        );
      }
      judged.push({ era, findings, evidence: [ctx.evidence(origin), ctx.evidence(host)] });
    }
    return judged;
  },
});
