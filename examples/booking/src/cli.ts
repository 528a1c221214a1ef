import { runCli } from './cli/run.js';
import { databaseConfig, UsageError } from './config.js';

const io = {
  out: (text: string) => process.stdout.write(text),
  err: (text: string) => process.stderr.write(text),
};

/** `npm run booking -- <command>`: administration of the booking product (SQLite, or PostgreSQL with DATABASE_URL). */
async function main(): Promise<number> {
  try {
    return await runCli(process.argv.slice(2), { ...databaseConfig(), io });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`Error: ${error.message}\n`);
    return 2;
  }
}

void main().then((code) => {
  process.exitCode = code;
});
