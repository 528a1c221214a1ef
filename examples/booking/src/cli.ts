import { runCli } from './cli/run.js';
import { databaseFile } from './config.js';

/** `npm run booking -- <command>`: administration of the booking product from a terminal. */
const code = await runCli(process.argv.slice(2), {
  file: databaseFile(),
  io: { out: (text) => process.stdout.write(text), err: (text) => process.stderr.write(text) },
});
process.exitCode = code;
