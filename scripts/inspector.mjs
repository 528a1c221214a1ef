#!/usr/bin/env node
/**
 * Runs the MCP Inspector CLI in strict mode against the booking example's
 * MCP server, in both protocol eras, with a bearer token: lists the tools
 * with `--strict` (the Inspector's tool-schema portability checks) and calls
 * one read tool. Fails on any error, any schema finding (warning or error)
 * and any warning line on stderr. Needs `npm run build` first.
 *
 *   node scripts/inspector.mjs [--verbose]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveNode22Tool, startBooking } from './bookingUnderTest.mjs';

const INSPECTOR = '@modelcontextprotocol/inspector@2.12.0';
/** `legacy` negotiates 2025-11-25 with `initialize`; `modern` speaks 2026-07-28. */
const ERAS = ['legacy', 'modern'];
const READ_CALL = { tool: 'find_customers', args: { query: 'Ada' } };

/**
 * Runs the Inspector CLI with its state (catalog, client config, OAuth store)
 * in a throwaway home: no browser, no stored login, no interactive OAuth.
 */
function inspect(tool, home, args) {
  return new Promise((resolve) => {
    const env = {
      ...process.env,
      HOME: home,
      USERPROFILE: home,
      MCP_CATALOG_PATH: join(home, 'catalog.json'),
      MCP_CLIENT_CONFIG_PATH: join(home, 'client.json'),
      BROWSER: 'none',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
    };
    const child = spawn(tool.node, [tool.bin, '--cli', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function parse(stdout) {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** Lines on stderr that report a problem; the Inspector prints nothing else there with `--format json`. */
function complaints(stderr) {
  return stderr.split('\n').filter((line) => /\b(warn(ing)?|error)\b/i.test(line));
}

function judgeList({ code, stdout, stderr }) {
  const reasons = [];
  const output = parse(stdout);
  const tools = output?.result?.tools ?? [];
  const findings = (output?.schemaFindings ?? []).flatMap((entry) =>
    entry.findings.map((f) => `${f.severity} ${entry.toolName} ${f.schema}.${f.path}: ${f.rule}`),
  );
  if (code !== 0) reasons.push(`inspector exit code ${code}`);
  if (!output) reasons.push('the Inspector printed no JSON result');
  if (tools.length === 0) reasons.push('no tools were listed');
  if (!tools.some((t) => t.name === READ_CALL.tool)) reasons.push(`${READ_CALL.tool} is not listed`);
  reasons.push(...findings, ...complaints(stderr));
  return { reasons, summary: `${tools.length} tools, ${findings.length} schema findings` };
}

function judgeCall({ code, stdout, stderr }) {
  const reasons = [];
  const result = parse(stdout)?.result;
  if (code !== 0) reasons.push(`inspector exit code ${code}`);
  if (!result) reasons.push('the Inspector printed no JSON result');
  else if (result.isError) reasons.push(`the call failed: ${JSON.stringify(result.content)}`);
  else if (result.structuredContent?.status !== 'ok') reasons.push('the result is not status "ok"');
  reasons.push(...complaints(stderr));
  const found = result?.structuredContent?.result?.customers?.length;
  return { reasons, summary: `isError=${result?.isError ?? false}, ${found ?? 0} customers` };
}

async function main() {
  const verbose = process.argv.includes('--verbose');
  const started = Date.now();
  const tool = resolveNode22Tool(INSPECTOR, 'mcp-inspector');
  console.log(`${INSPECTOR} on Node ${tool.version}`);
  const booking = await startBooking({ label: 'MCP Inspector strict check' });
  const home = mkdtempSync(join(tmpdir(), 'gatehouse-inspector-'));
  let failures = 0;
  try {
    for (const era of ERAS) {
      const common = ['--server-url', booking.url, '--transport', 'http', '--protocol-era', era];
      common.push(
        '--header',
        `Authorization: Bearer ${booking.token}`,
        '--stored-auth-only',
        '--format',
        'json',
      );
      const runs = [
        ['tools/list --strict', ['--method', 'tools/list', '--strict'], judgeList],
        [
          `tools/call ${READ_CALL.tool}`,
          [
            '--method',
            'tools/call',
            '--tool-name',
            READ_CALL.tool,
            '--tool-args-json',
            JSON.stringify(READ_CALL.args),
          ],
          judgeCall,
        ],
      ];
      for (const [name, args, judge] of runs) {
        const outcome = await inspect(tool, home, [...common, ...args]);
        const { reasons, summary } = judge(outcome);
        console.log(
          `${reasons.length === 0 ? 'pass' : 'FAIL'}  ${era.padEnd(6)}  ${name.padEnd(28)} ${summary}`,
        );
        for (const reason of reasons) console.log(`        ${reason}`);
        if (reasons.length > 0) failures += 1;
        if (verbose || reasons.length > 0) console.log(outcome.stderr.replace(/^/gm, '        | '));
      }
    }
  } finally {
    await booking.stop();
    rmSync(home, { recursive: true, force: true });
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`${failures === 0 ? 'No warning, no error' : `${failures} failing run(s)`} in ${seconds} s.`);
  if (failures > 0) process.exitCode = 1;
}

main().catch((error) => {
  console.error(`check:inspector: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
