#!/usr/bin/env node
import { main } from './main.js';

void main({
  argv: process.argv.slice(2),
  cwd: process.cwd(),
  env: process.env,
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
}).then((status) => {
  process.exitCode = status;
});
