import { serveStdio } from '@gatehousejs/core/stdio';
import { type BookingApp, createBookingApp } from './app.js';
import { banner } from './banner.js';
import { DEMO, databaseConfig, portOf, rateLimitsOf, replayLeaseOf, UsageError } from './config.js';
import { rotateDemoToken } from './demoToken.js';
import { type Serving, serveHttp } from './httpServer.js';
import { createSignInLink } from './pages/index.js';
import { type BookingTelemetry, startTelemetry } from './telemetry.js';

/** A non-negative whole number of milliseconds from the environment, or `fallback` when unset. */
function millisecondsOf(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new UsageError(`${name} must be a whole number of milliseconds (got "${raw}").`);
  }
  return value;
}

/**
 * The product's public origin from `PUBLIC_URL` (where approval links and
 * sign-in links point, and the origin the pages accept on POSTs behind a
 * proxy), or undefined to use the address the server listens on.
 */
function publicUrlOf(): string | undefined {
  const raw = process.env.PUBLIC_URL;
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new UsageError(
      `PUBLIC_URL must be an http(s) origin such as https://booking.example (got "${raw}").`,
    );
  }
  return url.origin;
}

/**
 * On SIGTERM or SIGINT: readiness fails, and after SHUTDOWN_DRAIN_DELAY_MS
 * (default 0) new requests get 503 with Retry-After; after SHUTDOWN_GRACE_MS
 * more (default 1 s) the server stops accepting; requests in flight finish
 * within SHUTDOWN_DEADLINE_MS (default 10 s), then the database closes,
 * buffered telemetry is exported, and the process exits 0.
 */
function stopGracefully(app: BookingApp, serving: Serving, telemetry: BookingTelemetry | undefined): void {
  const drainDelayMs = millisecondsOf('SHUTDOWN_DRAIN_DELAY_MS', 0);
  const graceMs = millisecondsOf('SHUTDOWN_GRACE_MS', 1_000);
  const deadlineMs = millisecondsOf('SHUTDOWN_DEADLINE_MS', 10_000);
  const stop = async (signal: NodeJS.Signals) => {
    const delays = { drain_delay_ms: drainDelayMs, grace_ms: graceMs };
    app.logger.info({ event: 'shutdown', signal, ...delays }, 'shutting down');
    let code = 0;
    try {
      const report = await serving.shutdown({ drainDelayMs, graceMs, deadlineMs });
      app.logger.info({ event: 'shutdown', ...report }, 'stopped serving');
      await app.close();
    } catch (error) {
      app.logger.error({ event: 'shutdown', error_type: (error as Error)?.name }, 'shutdown failed');
      code = 1;
    }
    await telemetry?.shutdown();
    process.exit(code);
  };
  process.once('SIGINT', (signal) => void stop(signal));
  process.once('SIGTERM', (signal) => void stop(signal));
}

/**
 * Serves Streamable HTTP, the REST API and the operator pages on loopback,
 * replaces the demo token (the previous one is revoked, audited), makes a
 * one-time sign-in link for the demo person and prints the banner.
 */
async function serve(app: BookingApp, telemetry: BookingTelemetry | undefined): Promise<void> {
  const serving = await serveHttp(app, { port: portOf() });
  stopGracefully(app, serving, telemetry);
  const demo = await rotateDemoToken(app);
  const signInLink = await createSignInLink(app, DEMO.personId);
  process.stdout.write(
    banner({
      mcpUrl: serving.mcpUrl,
      apiUrl: serving.apiUrl,
      pages: { url: serving.pagesUrl, signInLink },
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
}

/** Serves one stdio connection with the credential in `BOOKING_TOKEN`. */
function serveOneStdioConnection(app: BookingApp, telemetry: BookingTelemetry | undefined): void {
  const token = process.env.BOOKING_TOKEN;
  if (!token) throw new UsageError('Set BOOKING_TOKEN to an MCP token (npm run booking -- token create …).');
  const handle = serveStdio(app.mcp, { token });
  process.stdin.once('end', () => {
    void handle.close().finally(async () => {
      await app.close();
      await telemetry?.shutdown();
    });
  });
}

async function main(): Promise<void> {
  const lease = replayLeaseOf();
  const publicUrl = publicUrlOf();
  const telemetry = await startTelemetry();
  const app = await createBookingApp({
    ...databaseConfig(),
    ...(publicUrl ? { publicUrl } : {}),
    rateLimits: rateLimitsOf(),
    ...(lease ? { replayLeaseMs: lease } : {}),
    ...(telemetry ? { telemetry: telemetry.telemetry } : {}),
  });
  if (process.argv.includes('--stdio')) serveOneStdioConnection(app, telemetry);
  else await serve(app, telemetry);
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
