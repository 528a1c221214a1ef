/**
 * The official conformance suite's authorization-server scenarios
 * (`authorization-server-metadata-endpoint`, `authorization-code-grant`)
 * against the booking example's OAuth authorization server. The second is
 * interactive: the suite prints an authorization URL and waits for the
 * redirect to its loopback callback. This registers a pre-registered public
 * client for the run with the booking CLI, signs the demo owner in with the
 * one-time link the server printed, and drives the consent page in headless
 * Chromium (playwright-core) when the URL appears. Any check other than
 * SUCCESS fails the run, SKIPPED and WARNING included.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { freePort } from './bookingUnderTest.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs';

/** The scenarios, each of which must report SUCCESS on every check. */
export const AUTHORIZATION_SCENARIOS = ['authorization-server-metadata-endpoint', 'authorization-code-grant'];
const CLIENT_ID = 'conformance-suite';
/** How long the whole interactive run may take before it counts as failed. */
const RUN_TIMEOUT_MS = 120_000;

/** Every `checks.json` under `dir` (the suite writes one folder per scenario run). */
function readAllChecks(dir) {
  const found = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === 'checks.json') found.push(...JSON.parse(readFileSync(path, 'utf8')));
    }
  };
  walk(dir);
  return found;
}

/**
 * Signs in with the one-time link, opens `authorizeUrl`, allows on the
 * consent page, and waits until the browser reaches the suite's callback.
 */
async function consentInBrowser(page, signInLink, authorizeUrl, callbackPrefix) {
  const signedIn = await page.goto(signInLink);
  if (!signedIn?.ok()) throw new Error(`the sign-in link answered ${signedIn?.status()}`);
  await page.goto(authorizeUrl);
  if (!new URL(page.url()).pathname.startsWith('/oauth/consent/')) {
    throw new Error(
      `the authorization request did not reach the consent page (at ${new URL(page.url()).pathname})`,
    );
  }
  await Promise.all([
    page.waitForURL((url) => url.href.startsWith(callbackPrefix), { timeout: 30_000 }),
    page.click('button[name="decision"][value="grant"]'),
  ]);
}

/**
 * Runs the suite's `authorization` command against the booking server
 * (`booking` from startBooking) and judges every check it wrote.
 * Returns { ok, summary, reasons, output }.
 */
export async function runAuthorizationScenarios(tool, booking) {
  const mcpUrl = new URL(booking.url);
  const issuer = mcpUrl.origin;
  const signInLink = /Sign-in link \(one use, 15 min\): (\S+)/.exec(booking.output.join(''))?.[1];
  if (!signInLink) throw new Error('the booking server printed no sign-in link');
  // a native client: the provider accepts its loopback redirect URI on any port (RFC 8252)
  booking.cli([
    'oauth-client',
    'add',
    '--id',
    CLIENT_ID,
    '--name',
    'MCP conformance suite',
    '--redirect-uris',
    'http://127.0.0.1/callback',
  ]);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-as-'));
  const profile = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS],
    timeout: 30_000,
  });
  let output = '';
  const reasons = [];
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    const args = [tool.bin, 'authorization', '--url', issuer, '--client-id', CLIENT_ID];
    args.push('--resource', mcpUrl.href, '--port', String(port), '--output-dir', dir);
    const child = spawn(tool.node, args, {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const authorizePrefix = `${issuer}/oauth/authorize?`;
    let driving;
    const onData = (chunk) => {
      output += chunk;
      const line = output.split('\n').find((l) => l.trim().startsWith(authorizePrefix));
      if (line && !driving) {
        driving = consentInBrowser(page, signInLink, line.trim(), `http://127.0.0.1:${port}/callback`).catch(
          (error) => reasons.push(`driving the consent page: ${error.message}`),
        );
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const code = await new Promise((resolve) => child.on('close', resolve));
    clearTimeout(timer);
    await driving;
    if (code !== 0) reasons.push(`suite exit code ${code}`);
    if (!driving) reasons.push('the suite printed no authorization URL');
  } finally {
    await context.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  const checks = readAllChecks(dir);
  rmSync(dir, { recursive: true, force: true });
  for (const scenario of AUTHORIZATION_SCENARIOS) {
    if (!checks.some((c) => c.id === scenario || c.id.startsWith(`${scenario.replace(/-endpoint$/, '')}`))) {
      reasons.push(`no check of ${scenario} was written`);
    }
  }
  for (const c of checks.filter((c) => c.status !== 'SUCCESS')) {
    reasons.push(`${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  }
  const passed = checks.filter((c) => c.status === 'SUCCESS').length;
  return {
    ok: reasons.length === 0,
    summary: `${passed} of ${checks.length} checks passed`,
    reasons,
    output,
  };
}
