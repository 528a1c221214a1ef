/**
 * One admission for every transport: the order of its steps, and the
 * refusal log each transport writes through it (rate-limited, at info or
 * warn, never a token).
 */
import { request as httpRequest } from 'node:http';
import { PassThrough } from 'node:stream';
import { RawStdioClient } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import { listen } from '../src/node.js';
import { admit, type HttpAdmissionInput } from '../src/serve/admission.js';
import { LOCAL_HOSTNAMES } from '../src/serve/hostOrigin.js';
import { reporter } from '../src/serve/report.js';
import { outageOf } from '../src/serve/unavailable.js';
import { serveStdio } from '../src/stdio.js';
import { notesServer, SECRET_ERROR, TOKEN_T1 } from './fixtures/notesServer.js';
import { httpHost } from './fixtures/v1Carriers.js';
import { notesApp, v1Host } from './fixtures/v1Notes.js';
import { recordingLogger } from './recording.js';

const http = (overrides: Partial<HttpAdmissionInput> = {}): HttpAdmissionInput => ({
  transport: 'http',
  host: 'localhost:3000',
  origin: undefined,
  authorization: `Bearer ${TOKEN_T1}`,
  allowedHosts: LOCAL_HOSTNAMES,
  allowedOrigins: LOCAL_HOSTNAMES,
  ...overrides,
});

describe('admit', () => {
  it('admits a request with a connection carrying the authenticator’s tenant and rights', async () => {
    const app = notesServer();
    const admission = await admit(app.server, http());
    expect(admission).toMatchObject({ connection: { tenantId: 't1', connectionId: 'conn_t1' } });
    expect(app.authCalls).toEqual([TOKEN_T1]);
  });

  it('runs admission guards first: the kill switch answers 503 before Host, Origin or the credential are looked at', async () => {
    const app = notesServer();
    app.killSwitch.on = true;
    let tenantRead = false;
    const tenant = () => {
      tenantRead = true;
      return 't1';
    };
    const admission = await admit(
      app.server,
      http({ host: 'attacker.example', authorization: undefined, tenant }),
    );
    expect(admission).toMatchObject({ step: 'guard', refusal: { status: 503, retryAfterSeconds: 30 } });
    expect(app.authCalls).toEqual([]);
    expect(tenantRead).toBe(false);
  });

  it('checks Host, then Origin, then the bearer, then the authenticator', async () => {
    const app = notesServer();
    const steps = await Promise.all([
      admit(app.server, http({ host: 'attacker.example', origin: 'https://evil.example' })),
      admit(app.server, http({ origin: 'https://evil.example', authorization: undefined })),
      admit(app.server, http({ authorization: 'Basic dXNlcjpwYXNz' })),
      admit(app.server, http({ authorization: 'Bearer ghmcp_unknown_0000' })),
    ]);
    expect(steps.map((s) => ('step' in s ? [s.step, s.refusal.status] : 'admitted'))).toEqual([
      ['host', 403],
      ['origin', 403],
      ['bearer', 401],
      ['credential', 401],
    ]);
    expect(app.authCalls).toEqual(['ghmcp_unknown_0000']);
  });

  it('reads the transport tenant only once a bearer token is there, and hands it to the authenticator', async () => {
    const app = notesServer();
    const reads: string[] = [];
    const tenant = () => {
      reads.push('read');
      return 't2';
    };
    await admit(app.server, http({ authorization: undefined, tenant }));
    expect(reads).toEqual([]);
    const foreign = await admit(app.server, http({ tenant }));
    expect(foreign).toMatchObject({ step: 'credential', refusal: { status: 403 } });
    expect(app.transportTenants).toEqual(['t2']);
  });

  it('has no Host, Origin or bearer step on stdio: admission guards, then the configured credential', async () => {
    const app = notesServer();
    const admitted = await admit(app.server, { transport: 'stdio', token: TOKEN_T1, tenant: 't1' });
    expect(admitted).toMatchObject({ connection: { tenantId: 't1' } });
    app.grants.get(TOKEN_T1)!.revoked = true;
    const revoked = await admit(app.server, { transport: 'stdio', token: TOKEN_T1 });
    expect(revoked).toMatchObject({ step: 'credential', refusal: { status: 403 } });
    expect(app.transportTenants).toEqual(['t1', undefined]);
  });

  it('refuses with 503 at step unavailable when an admission guard throws, and reports the error', async () => {
    const app = notesServer();
    app.broken.admission = true;
    const outage = outageOf({ retryAfterSeconds: 7, timeoutMs: 1_000 }, 'test', reporter(app.server, 'http'));
    const admission = await admit(app.server, http(), undefined, outage);
    expect(admission).toEqual({
      step: 'unavailable',
      refusal: { status: 503, reason: 'Temporarily unavailable; retry shortly.', retryAfterSeconds: 7 },
    });
    expect(app.authCalls).toEqual([]);
    expect(app.reported.map((e) => e.message)).toEqual([SECRET_ERROR]);
  });

  it('rejects when the transport tenant reader throws (host code, not a store), so the transport fails closed', async () => {
    const app = notesServer();
    const tenant = () => {
      throw new Error(SECRET_ERROR);
    };
    await expect(admit(app.server, http({ tenant }))).rejects.toThrow(SECRET_ERROR);
    expect(app.authCalls).toEqual([]);
  });
});

/** Every logged line as one string, to look for token material anywhere in it. */
const linesOf = (logger: ReturnType<typeof recordingLogger>) =>
  logger.lines.map((l) => JSON.stringify([l.level, l.message, l.record]));

/** No line carries a token, a token's prefix or an Authorization header; none is at error level. */
function expectNoTokenMaterial(logger: ReturnType<typeof recordingLogger>, tokens: readonly string[]) {
  for (const line of linesOf(logger)) {
    for (const token of tokens) expect(line).not.toContain(token);
    expect(line).not.toMatch(/ghmcp_|Bearer |Basic |authorization|dXNlcj/);
  }
  expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
}

/** A raw POST to an MCP endpoint over node:http, which may set any header. */
function post(url: URL, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }));
  });
}

const UNKNOWN = 'ghmcp_unknown_s3cr3t_value';
const REFUSED_HEADERS: readonly Record<string, string>[] = [
  {},
  {},
  {},
  { authorization: `Bearer ${UNKNOWN}` },
  { authorization: `Bearer ${UNKNOWN}` },
  { authorization: `Bearer ${TOKEN_T1} extra` },
  { authorization: `Basic ${Buffer.from(`user:${UNKNOWN}`).toString('base64')}` },
  { authorization: `Bearer ${TOKEN_T1}`, origin: 'https://evil.example' },
  { authorization: `Bearer ${TOKEN_T1}`, origin: 'https://evil.example' },
];

/** What the HTTP refusals above should log: one line per step and status, the repeats suppressed. */
const EXPECTED_HTTP_LINES = [
  ['info', 401, 'bearer'],
  ['info', 401, 'credential'],
  ['warn', 403, 'origin'],
];

const summary = (logger: ReturnType<typeof recordingLogger>) =>
  logger.lines.map((l) => {
    const record = l.record as { status: number; step: string };
    return [l.level, record.status, record.step];
  });

describe('refusal logging per transport', () => {
  it('logs Streamable HTTP refusals once per client address and reason, with the socket address and no token', async () => {
    const app = notesServer();
    const logger = recordingLogger();
    await using listening = await listen(app.server, { logger });
    for (const headers of REFUSED_HEADERS)
      expect(await post(listening.url, headers)).toBeGreaterThanOrEqual(401);
    expect(await post(listening.url, { authorization: `Bearer ${TOKEN_T1}` })).toBe(200);

    expect(summary(logger)).toEqual(EXPECTED_HTTP_LINES);
    expect(logger.lines[0]?.record).toMatchObject({
      event: 'admission_refusal',
      transport: 'http',
      reason: 'A bearer token is required.',
      client_address: expect.stringMatching(/127\.0\.0\.1/),
    });
    expectNoTokenMaterial(logger, [UNKNOWN, TOKEN_T1]);
    // the server's own per-call log is untouched by the refusals
    expect(app.logs).toEqual([]);
  });

  it('logs 503 at info while the kill switch is on, once, and takes the client address from the host', async () => {
    const app = notesServer();
    const logger = recordingLogger();
    await using listening = await listen(app.server, {
      logger,
      clientAddress: (request) => request.headers.get('x-forwarded-for') ?? undefined,
    });
    app.killSwitch.on = true;
    for (let i = 0; i < 3; i++) {
      const status = await post(listening.url, {
        authorization: `Bearer ${TOKEN_T1}`,
        'x-forwarded-for': '203.0.113.7',
      });
      expect(status).toBe(503);
    }
    expect(logger.lines).toEqual([
      {
        level: 'info',
        message: 'admission refusal',
        record: {
          event: 'admission_refusal',
          transport: 'http',
          status: 503,
          step: 'guard',
          reason: 'Agent access is paused.',
          client_address: '203.0.113.7',
        },
      },
    ]);
  });

  it('logs the SDK v1 admission middleware’s refusals the same way', async () => {
    const app = notesApp();
    const logger = recordingLogger();
    await using host = await httpHost(app, 'Server', 'stateless', { logger });
    for (const headers of REFUSED_HEADERS) expect(await post(host.url, headers)).toBeGreaterThanOrEqual(401);
    expect(summary(logger)).toEqual(EXPECTED_HTTP_LINES);
    expect(logger.lines[0]?.record).toMatchObject({ client_address: expect.stringMatching(/127\.0\.0\.1/) });
    expectNoTokenMaterial(logger, [UNKNOWN, TOKEN_T1]);
  });

  it('logs stdio refusals (a revoked token) once, without a client address', async () => {
    const app = notesServer();
    const logger = recordingLogger();
    const input = new PassThrough();
    const output = new PassThrough();
    const handle = serveStdio(app.server, { token: TOKEN_T1, logger, input, output });
    await using client = RawStdioClient.connect(
      { input, output, close: () => handle.close() },
      { era: '2026-07-28' },
    );
    app.grants.get(TOKEN_T1)!.revoked = true;
    for (let i = 0; i < 3; i++) expect((await client.listTools()).error?.code).toBe(-32043);
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        message: 'admission refusal',
        record: {
          event: 'admission_refusal',
          transport: 'stdio',
          status: 403,
          step: 'credential',
          reason: 'This token was revoked.',
        },
      },
    ]);
    expectNoTokenMaterial(logger, [TOKEN_T1]);
  });

  it('logs the v1 mount’s refusals on its configured credential (stdio)', async () => {
    const app = notesApp();
    const logger = recordingLogger();
    const server = v1Host('Server', app, { credential: { token: TOKEN_T1 }, logger });
    const input = new PassThrough();
    const output = new PassThrough();
    const { StdioLineTransport } = await import('../src/sdkV1.js');
    await server.connect(new StdioLineTransport(input, output));
    await using client = RawStdioClient.connect(
      { input, output, close: () => server.close() },
      { era: '2025-11-25' },
    );
    app.killSwitch.on = true;
    for (let i = 0; i < 2; i++) expect((await client.listTools()).error?.code).toBe(-32053);
    expect(summary(logger)).toEqual([['info', 503, 'guard']]);
    expect(logger.lines[0]?.record).toMatchObject({ transport: 'stdio' });
    expectNoTokenMaterial(logger, [TOKEN_T1]);
  });
});
