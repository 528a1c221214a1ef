#!/usr/bin/env node
// The `gatehouse` command: `npx @gatehousejs/testing scan <url>` (see docs/scan.md).
import { runCli } from './scan/cli.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`gatehouse: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 4;
  },
);
