import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/server';
import { type StdioServerHandle, serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio';
import type { Connection } from './context.js';
import { ConfigurationError } from './errors.js';
import type { Logger } from './logging.js';
import { admit } from './serve/admission.js';
import { byteLimit } from './serve/body.js';
import { capOutgoing } from './serve/echoes.js';
import { StdioLineTransport } from './serve/lineTransport.js';
import { type RefusalLog, refusalLogOf } from './serve/refusalLog.js';
import { refuseMovedOnerror, reporter } from './serve/report.js';
import { screenIncoming } from './serve/screen.js';
import { sdkOnerror } from './serve/sdkReports.js';
import { admissionProtocolError, sdkServer } from './serve/sdkServer.js';
import { outageOf, type UnavailableOptions } from './serve/unavailable.js';
import type { GatehouseServer } from './server.js';

export type { StdioLineTransportOptions } from './serve/lineTransport.js';
export { StdioLineTransport } from './serve/lineTransport.js';
export type { ErrorFacts, OnError } from './serve/report.js';
export type { UnavailableOptions } from './serve/unavailable.js';

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /** The credential of the one connection stdio serves (e.g. from an environment variable). */
  readonly token: string | undefined;
  /** The tenant, for a credential serving several tenants. */
  readonly tenant?: string | undefined;
  /**
   * Most bytes of one line (one JSON-RPC message); a longer line is refused
   * as an invalid request without being parsed, and the next line is served.
   * Default 1 MiB, as HTTP's `maxBodyBytes`. Applies to Gatehouse's own line
   * framing (the default, or `input`/`output`), not to a `transport` you pass.
   */
  readonly maxBodyBytes?: number;
  /**
   * Where admission refusals (503, 403, 401 as JSON-RPC errors) are logged, at info
   * or warn, never token material; at most one line per reason a minute, then
   * one "N suppressed" line. Default: the server's `logger`.
   */
  readonly logger?: Logger;
  /**
   * When a store admission reads (the kill switch's switch store, the
   * credential store behind the authenticator) fails or answers slower than
   * `timeoutMs` (default 5 s): every request answers the JSON-RPC error -32053 (`retry_after_seconds` in its data)
   * naming no cause, with `Retry-After` of `retryAfterSeconds` (default 5);
   * the error goes to the server's `onError`, one line per window to the refusal log.
   */
  readonly unavailable?: UnavailableOptions;
  /** The stream to read instead of the process's stdin (e.g. a socket, or a pipe in tests). */
  readonly input?: Readable | undefined;
  /** The stream to write instead of the process's stdout. */
  readonly output?: Writable | undefined;
  /**
   * An SDK transport to serve on instead of Gatehouse's line framing, e.g. a
   * `StdioServerTransport` over a socket. The server owns it: it starts it and
   * closes it with the handle. It keeps its own framing (its own line limit;
   * batches are dropped unanswered); malformed `tools/call` params still get
   * the short answer.
   */
  readonly transport?: Transport | undefined;
}

function wireOf(options: StdioOptions, maxBodyBytes: number, log: RefusalLog): Transport {
  if (options.transport) {
    if (options.input || options.output) {
      throw new ConfigurationError('serveStdio: pass either transport or input/output, not both.');
    }
    return options.transport;
  }
  return new StdioLineTransport(options.input ?? process.stdin, options.output ?? process.stdout, {
    maxBodyBytes,
    onMistake: (reason, status) =>
      log.refused({ refusal: { status, reason }, step: 'request', transport: 'stdio' }),
  });
}

/**
 * Serves a Gatehouse server over stdio: one connection whose credential
 * comes from configuration. Admission (admission guards such as the kill switch,
 * then the authenticator) runs on every request, so a kill switch, a revoked
 * token or a removed right applies to the very next call; refusals are
 * JSON-RPC errors (503 carries `retry_after_seconds`) and are logged to
 * `logger`. A store behind an admission guard or the authenticator that fails or
 * is too slow answers -32053 "Temporarily unavailable; retry shortly."
 * (`unavailable`); the next request tries again. Lines are read within `maxBodyBytes`; a batch, an oversized line,
 * an id longer than 200 characters or a `tools/call` with malformed params is answered before anything runs.
 * Every JSON-RPC error written, the SDK's own included, repeats at most 200 characters of caller text.
 */
export function serveStdio<TRight extends string>(
  server: GatehouseServer<TRight>,
  options: StdioOptions,
): StdioServerHandle {
  const token = options.token;
  if (!token) throw new ConfigurationError('serveStdio: a token is required (set it in the environment).');
  refuseMovedOnerror(options, 'serveStdio', (m) => new ConfigurationError(m));
  const report = reporter(server, 'stdio');
  const maxBodyBytes = byteLimit(options.maxBodyBytes, 'serveStdio');
  const log = refusalLogOf(options.logger, server);
  const wire = wireOf(options, maxBodyBytes, log);
  // the SDK writes its own refusals (an unsupported protocol version) straight to the wire
  capOutgoing(wire);
  const outage = outageOf(options.unavailable, 'serveStdio', report);
  const connection = async (): Promise<Connection<TRight>> => {
    const request = { transport: 'stdio', token, tenant: options.tenant } as const;
    const admission = await admit(server, request, log, outage);
    if ('refusal' in admission) throw admissionProtocolError(admission.refusal);
    return admission.connection;
  };
  const handle = sdkServeStdio(() => sdkServer(server, connection, report, 'stdio'), {
    onerror: sdkOnerror(report),
    transport: wire,
  });
  // serveStdio has set the wire's onmessage and started it; nothing has been read yet
  if (options.transport) screenIncoming(wire, report);
  return handle;
}
