import { serveStdio } from '@gatehousejs/core/stdio';
import { type BookingApp, createBookingApp } from './app.js';
import { banner } from './banner.js';
import { DEMO, databaseFile, portOf, UsageError } from './config.js';
import { rotateDemoToken } from './demoToken.js';
import { serveHttp } from './httpServer.js';

/**
 * Serves Streamable HTTP and the REST API on loopback, replaces the demo
 * token (the previous one is revoked, audited) and prints the banner.
 */
async function serve(app: BookingApp): Promise<void> {
  const serving = await serveHttp(app, { port: portOf() });
  const demo = await rotateDemoToken(app);
  process.stdout.write(
    banner({
      mcpUrl: serving.mcpUrl,
      apiUrl: serving.apiUrl,
      token: demo.token,
      credentialId: demo.credential.id,
      person: `${demo.person.name} (${demo.person.id}, ${demo.person.role})`,
      workspace: DEMO.workspaceId,
      expiresAt: demo.expiresAt,
      file: app.database.file,
      seeded: app.seeded,
      revoked: demo.revoked,
    }),
  );
  const stop = () => {
    void serving.close().finally(() => {
      app.close();
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Serves one stdio connection with the credential in `BOOKING_TOKEN`. */
function serveOneStdioConnection(app: BookingApp): void {
  const token = process.env.BOOKING_TOKEN;
  if (!token) throw new UsageError('Set BOOKING_TOKEN to an MCP token (npm run booking -- token create …).');
  const handle = serveStdio(app.mcp, {
    token,
    onerror: (error) => app.logger.error({ event: 'stdio', error_type: error.name }, 'stdio transport error'),
  });
  process.stdin.once('end', () => {
    void handle.close().finally(() => app.close());
  });
}

async function main(): Promise<void> {
  const app = createBookingApp({ file: databaseFile() });
  if (process.argv.includes('--stdio')) serveOneStdioConnection(app);
  else await serve(app);
}

/** One line for the person at the terminal: the cause and the fix, never a stack trace. */
function explain(error: unknown): { message: string; code: number } {
  if (error instanceof UsageError) return { message: error.message, code: 2 };
  if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') {
    return {
      message: `Port ${portOf()} is in use. Set PORT to another port (PORT=0 picks a free one).`,
      code: 2,
    };
  }
  return {
    message: `The server could not start: ${error instanceof Error ? error.message : String(error)}`,
    code: 1,
  };
}

main().catch((error: unknown) => {
  const { message, code } = explain(error);
  process.stderr.write(`Error: ${message}\n`);
  process.exit(code);
});
