import { listen } from '@gatehousejs/core/node';
import { createApp } from './app.js';
import { openDatabase } from './db/memory.js';

/** The person whose token `npm start` mints (see `src/people.ts`). */
const DEMO_PERSON = 'p_ada';
const TOKEN_LABEL = 'npm start';

function portOf(value: string | undefined): number {
  const port = Number(value ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`PORT must be a port number from 0 to 65535 (got "${value}").`);
    process.exit(2);
  }
  return port;
}

const port = portOf(process.env.PORT);
const database = await openDatabase().catch((error: unknown) => {
  console.error(`The database did not open: ${error instanceof Error ? error.message : String(error)}`);
  return process.exit(1);
});
let origin = `http://127.0.0.1:${port}`;
const app = createApp(database, { origin: () => origin });
const running = await listen(app.server, {
  port,
  // #if console
  fetch: app.console.fetch, // every path but /mcp: the console's pages
  // #endif
});
origin = running.url.origin;

const { token, credentialId, expiresAt } = await app.mintToken(DEMO_PERSON, TOKEN_LABEL);
console.log(`Tickets MCP server (${database.engine}: ${database.location})

MCP URL   ${running.url.href}
Token     ${token}
          ${DEMO_PERSON} in ${app.people.get(DEMO_PERSON)?.workspaceId}, id ${credentialId}, expires ${expiresAt.toISOString()}.
          Shown once: only its hash is stored. The next start revokes it.`);
// #if console
console.log(`Console   ${origin}/approvals
          Sign-in link (one use, 15 minutes): ${app.console.signInLink(DEMO_PERSON)}`);
// #endif
console.log(`
Connect a client, e.g.
  claude mcp add --transport http tickets ${running.url.href} --header "Authorization: Bearer ${token}"
Logs go to standard error. Ctrl+C stops the server.`);

const housekeeping = setInterval(() => void database.housekeeping(Date.now()).catch(() => undefined), 60_000);
housekeeping.unref();

async function stop() {
  clearInterval(housekeeping);
  await running.close();
  await database.close();
  process.exit(0);
}
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
