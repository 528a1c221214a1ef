import { type CheckContext, defineServerCheck, defineToolCheck, describeReply, succeeded } from '../check.js';
import { errorCode } from '../envelope.js';
import type { ContractPlan } from '../plan.js';

const httpOnly = (plan: ContractPlan) =>
  plan.transport === 'http' ? ('run' as const) : { skip: 'needs an HTTP endpoint' };

/** A token with its last character changed: right prefix and length, wrong secret. */
export function tamper(token: string): string {
  const last = token.at(-1);
  return `${token.slice(0, -1)}${last === 'A' ? 'B' : 'A'}`;
}

async function wrongPairings(
  ctx: CheckContext,
): Promise<[string, string | undefined, Record<string, string>][]> {
  const token = await ctx.host.mint(ctx.host.home);
  const pairings: [string, string | undefined, Record<string, string>][] = [
    ['no credential', undefined, {}],
    ['a malformed Authorization header', undefined, { authorization: 'Bearer' }],
    ['a Basic credential', undefined, { authorization: `Basic ${btoa('home:password')}` }],
    ['the token with one character changed', tamper(token), {}],
    ['the MCP token sent as a session cookie', undefined, { cookie: `session=${token}` }],
  ];
  if (ctx.host.revoke) {
    const revoked = await ctx.host.mint(ctx.host.home);
    await ctx.host.revoke(revoked);
    pairings.push(['a revoked token', revoked, {}]);
  }
  const foreign = ctx.host.foreignCredentials ? await ctx.host.foreignCredentials() : {};
  if (foreign.apiToken) pairings.push(['a product API token', foreign.apiToken, {}]);
  if (foreign.sessionCookie)
    pairings.push(['a session cookie', undefined, { cookie: foreign.sessionCookie }]);
  if (foreign.otherAudienceToken) {
    pairings.push(['a token issued for another audience', foreign.otherAudienceToken, {}]);
  }
  return pairings;
}

/** Calls tools/list and every tool with `client`, reporting any status other than `expected`. */
async function everyRequest(
  ctx: CheckContext,
  label: string,
  expected: number,
  token: string | undefined,
  headers: Record<string, string>,
) {
  const client = await ctx.client(token, headers);
  const findings: string[] = [];
  const listed = await client.list();
  if (listed.status !== expected)
    findings.push(`${label}: tools/list answered ${describeReply(listed)}, not ${expected}`);
  for (const tool of ctx.plan.tools) {
    const reply = await client.call(tool.name, await ctx.sample(tool));
    if (reply.status !== expected) {
      findings.push(`${label}: ${tool.name} answered ${describeReply(reply)}, not ${expected}`);
    }
  }
  return findings;
}

/** I5: every wrong credential pairing answers 401 and runs nothing. */
export const credentialPairingsCheck = defineServerCheck({
  id: 'I5.credential-pairings',
  title: 'credentials do not cross',
  does: 'answers 401 to every wrong credential pairing and runs nothing',
  select: httpOnly,
  async run(ctx) {
    const pairings = await wrongPairings(ctx);
    const mark = await ctx.mark();
    const findings: string[] = [];
    for (const [label, token, headers] of pairings) {
      findings.push(...(await everyRequest(ctx, label, 401, token, headers)));
    }
    for (const change of await ctx.since(mark))
      findings.push(`${change} during calls with wrong credentials`);
    return findings;
  },
});

/** I5: a request from a foreign `Origin` answers 403, even with a valid token. */
export const badOriginCheck = defineServerCheck({
  id: 'I5.bad-origin',
  title: 'credentials do not cross',
  does: 'answers 403 to a foreign Origin even with a valid token, and runs nothing',
  select: httpOnly,
  async run(ctx) {
    const token = await ctx.host.mint(ctx.host.home);
    const mark = await ctx.mark();
    const findings = await everyRequest(ctx, 'Origin https://evil.example', 403, token, {
      origin: 'https://evil.example',
    });
    for (const change of await ctx.since(mark)) findings.push(`${change} during calls from a foreign Origin`);
    return findings;
  },
});

/** I6: the global kill switch answers 503 with Retry-After, runs nothing, and leaves tokens valid. */
export const globalSwitchCheck = defineToolCheck({
  id: 'I6.global-switch',
  title: 'kill switch',
  does: 'answers 503 with Retry-After while the global switch is on, writes nothing, and works again after',
  async run(ctx) {
    const client = await ctx.as(ctx.host.home);
    const findings: string[] = [];
    if ((await client.list()).status !== 200) findings.push('tools/list failed before the switch was set');
    const args = await ctx.sample(ctx.tool);
    await ctx.host.setGlobalSwitch(true);
    const mark = await ctx.mark();
    const reply = await client.call(ctx.tool.name, args);
    if (reply.status !== 503) findings.push(`the call was answered with ${describeReply(reply)}, not 503`);
    else if (!reply.retryAfter) findings.push('the 503 carries no Retry-After');
    for (const change of await ctx.since(mark)) findings.push(`${change} while the global switch was on`);
    await ctx.host.setGlobalSwitch(false);
    const again = await client.list();
    if (again.status !== 200) {
      findings.push(`after the switch was turned off the same token got ${describeReply(again)}`);
    }
    return findings;
  },
});

/** I6: the tenant switch refuses that tenant only; another tenant keeps working. */
export const tenantSwitchCheck = defineToolCheck({
  id: 'I6.tenant-switch',
  title: 'kill switch',
  does: 'is refused without effect while its tenant is switched off, and works for another tenant',
  async run(ctx) {
    const home = await ctx.as(ctx.host.home);
    const other = await ctx.as(ctx.host.other);
    const args = await ctx.sample(ctx.tool);
    const otherArgs = (await ctx.args(ctx.tool.fixture.foreign)) ?? args;
    await ctx.host.setTenantAccess(ctx.host.home.tenantId, false);
    const findings: string[] = [];
    const mark = await ctx.mark();
    const reply = await home.call(ctx.tool.name, args);
    if (succeeded(reply)) findings.push('the call ran although its tenant was switched off');
    for (const change of await ctx.since(mark)) findings.push(`${change} while the tenant was switched off`);
    const elsewhere = await other.call(ctx.tool.name, otherArgs);
    if (elsewhere.status !== 200 || errorCode(elsewhere.result) === 'tenant_disabled') {
      findings.push(`another tenant was refused too (${describeReply(elsewhere)})`);
    }
    return findings;
  },
});
