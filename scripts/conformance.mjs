#!/usr/bin/env node
/**
 * Runs the official MCP conformance suite against the booking example's MCP
 * server, in both protocol eras, with a bearer token, then its
 * authorization-server scenarios against the booking OAuth authorization
 * server (see conformanceAuthorization.mjs; needs Chromium). The scenarios that
 * apply to a tools-only server are listed here by name, so a new failure
 * fails this script; docs/conformance.md lists the others and why they do
 * not apply. Needs `npm run build` first. Exit code 0 only when every listed
 * scenario passes with no unexpected failure and no warning.
 *
 *   node scripts/conformance.mjs [--verbose]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveNode22Tool, startBooking } from './bookingUnderTest.mjs';
import { AUTHORIZATION_SCENARIOS, runAuthorizationScenarios } from './conformanceAuthorization.mjs';

/** Pinned exactly: the `latest` tag is the older 0.1 line, which has no 2026-07-28 era. */
const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';

/** Checks that need the suite's fixture tool `test_missing_capability`; the booking server has no such tool. */
const NEEDS_CAPABILITY_FIXTURE = [
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
];
/** Checks of `prompts/list`, `resources/list` and `resources/templates/list`, which a tools-only server does not serve. */
const NEEDS_PROMPTS_OR_RESOURCES = [
  'sep-2549-prompts-list-caching-hints',
  'sep-2549-resources-list-caching-hints',
  'sep-2549-resources-templates-list-caching-hints',
];

/**
 * The scenarios that apply to a tools-only server behind a bearer token, per
 * protocol era. `expected` names single checks of a scenario that cannot
 * apply (they are baselined per check; every other check must pass, and a
 * baselined check that starts passing fails the run as a stale baseline).
 * `vacuous` marks a scenario that may report only INFO on a stateless server.
 */
const PLAN = {
  '2025-11-25': [
    { scenario: 'server-initialize' },
    { scenario: 'server-session-lifecycle', vacuous: true },
    { scenario: 'ping' },
    { scenario: 'tools-list' },
    { scenario: 'dns-rebinding-protection' },
  ],
  '2026-07-28': [
    { scenario: 'server-stateless', expected: NEEDS_CAPABILITY_FIXTURE },
    { scenario: 'tools-list' },
    { scenario: 'server-sse-multiple-streams' },
    { scenario: 'dns-rebinding-protection' },
    { scenario: 'caching', expected: NEEDS_PROMPTS_OR_RESOURCES },
    { scenario: 'http-header-validation' },
    { scenario: 'input-required-result-unsupported-methods' },
  ],
};

/**
 * A loopback proxy that adds `Authorization: Bearer <token>` to every request
 * (the suite sends none) and passes everything else through unchanged,
 * Host and Origin included, so the DNS-rebinding checks still reach the gate.
 */
function bearerProxy(target, token) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    res.on('close', () => forward.destroy());
    req.pipe(forward);
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}${upstream.pathname}`,
        close: () => new Promise((r) => server.close(r).closeAllConnections()),
      });
    });
  });
}

function run(command, args) {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output }));
  });
}

function readChecks(dir) {
  const [result] = readdirSync(dir).filter((name) => name.startsWith('server-'));
  if (!result) return [];
  return JSON.parse(readFileSync(join(dir, result, 'checks.json'), 'utf8'));
}

/** Runs one scenario in one era and judges it: the suite's exit code and every check it wrote. */
async function runScenario(tool, url, era, step, workDir) {
  const dir = mkdtempSync(join(workDir, `${era}-${step.scenario}-`));
  const args = [tool.bin, 'server', '--url', url, '--scenario', step.scenario, '--spec-version', era];
  args.push('--output-dir', dir);
  if (step.expected) {
    const baseline = join(dir, 'expected-failures.yml');
    writeFileSync(baseline, `server:\n${step.expected.map((id) => `  - ${step.scenario}:${id}\n`).join('')}`);
    args.push('--expected-failures', baseline);
  }
  const { code, output } = await run(tool.node, args);
  const checks = readChecks(dir);
  const expected = new Set(step.expected ?? []);
  const count = (status) => checks.filter((c) => c.status === status && !expected.has(c.id)).length;
  const problems = checks.filter(
    (c) => !expected.has(c.id) && (c.status === 'FAILURE' || c.status === 'WARNING'),
  );
  const passed = count('SUCCESS');
  const reasons = [];
  if (code !== 0) reasons.push(`suite exit code ${code}`);
  if (checks.length === 0) reasons.push('no checks were written');
  if (passed === 0 && !step.vacuous) reasons.push('no check passed');
  for (const c of problems) reasons.push(`${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  const summary = `${passed} passed, ${count('INFO') + count('SKIPPED')} info/skipped, ${expected.size} not applicable`;
  return { ok: reasons.length === 0, summary, reasons, output };
}

async function main() {
  const verbose = process.argv.includes('--verbose');
  const started = Date.now();
  const tool = resolveNode22Tool(SUITE, 'conformance');
  console.log(`${SUITE} on Node ${tool.version}`);
  const booking = await startBooking({ label: 'MCP conformance suite' });
  const workDir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'));
  let proxy;
  let failures = 0;
  try {
    proxy = await bearerProxy(booking.url, booking.token);
    for (const [era, steps] of Object.entries(PLAN)) {
      for (const step of steps) {
        const result = await runScenario(tool, proxy.url, era, step, workDir);
        console.log(`${result.ok ? 'pass' : 'FAIL'}  ${era}  ${step.scenario.padEnd(42)} ${result.summary}`);
        for (const reason of result.reasons) console.log(`        ${reason}`);
        if (!result.ok) failures += 1;
        if (verbose || !result.ok) console.log(result.output.replace(/^/gm, '        | '));
      }
    }
    const result = await runAuthorizationScenarios(tool, booking);
    console.log(
      `${result.ok ? 'pass' : 'FAIL'}  OAuth authorization server: ${AUTHORIZATION_SCENARIOS.join(', ')}; ${result.summary}`,
    );
    for (const reason of result.reasons) console.log(`        ${reason}`);
    if (!result.ok) failures += 1;
    if (verbose || !result.ok) console.log(result.output.replace(/^/gm, '        | '));
  } finally {
    await proxy?.close();
    await booking.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  const total = Object.values(PLAN).flat().length + 1;
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${total - failures}/${total} scenario runs passed in ${seconds} s.`);
  if (failures > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`check:conformance: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
