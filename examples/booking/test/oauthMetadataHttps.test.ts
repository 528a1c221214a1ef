/**
 * A Client ID Metadata Document served over real HTTPS on loopback to the
 * real server process (`src/main.ts`, bundled), with dynamic registration
 * off: the test makes a certificate authority and a leaf certificate for
 * 127.0.0.1, the process trusts the authority through `NODE_EXTRA_CA_CERTS`
 * and may fetch from the one host:port in `BOOKING_OAUTH_METADATA_HOSTS`.
 * The person signs in and consents through the pages, the code is redeemed
 * with PKCE and the token calls MCP. Another port on loopback, another name
 * for the allowed address, private addresses, and an allowed host whose
 * certificate the process does not trust are refused as `invalid_client`.
 */
import 'reflect-metadata';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleChild } from '../../../test/childBundle.js';
import { metadataDocument, pkce, REDIRECT_URI, redeemCode } from './fixtures/oauthFlow.js';
import { rawClient } from './fixtures/raw.js';
import { bookingEnv, countIn, type RunningBooking, spawnBooking } from './fixtures/spawnBooking.js';
import { hiddenFieldsIn, PagesBrowser } from './pagesClient.js';

const here = dirname(fileURLToPath(import.meta.url));
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const HOUR_MS = 3_600_000;

/** A certificate authority: its certificate and the key that signs its leaves. */
interface Authority {
  readonly cert: x509.X509Certificate;
  readonly key: CryptoKey;
}

/** A self-signed certificate authority made for this run. */
async function makeAuthority(name: string): Promise<Authority> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, false, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + HOUR_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ],
  });
  return { cert, key: keys.privateKey };
}

/** A server certificate for IP 127.0.0.1 and DNS localhost signed by `authority`, and its key, as PEM. */
async function makeLeaf(authority: Authority): Promise<{ cert: string; key: string }> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: '02',
    subject: 'CN=127.0.0.1',
    issuer: authority.cert.subject,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + HOUR_MS),
    publicKey: keys.publicKey,
    signingKey: authority.key,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'ip', value: '127.0.0.1' },
        { type: 'dns', value: 'localhost' },
      ]),
    ],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** An HTTPS server on 127.0.0.1 serving a metadata document at `/client.json`, counting connections and requests. */
interface DocumentServer {
  readonly server: Server;
  readonly clientId: string;
  readonly host: string;
  /** Every request's path, in order. */
  readonly requests: string[];
  /** TCP connections accepted (a request may follow or not). */
  connections(): number;
}

async function serveDocument(leaf: { cert: string; key: string }): Promise<DocumentServer> {
  const requests: string[] = [];
  let connections = 0;
  const server = createServer(leaf, (request, response) => {
    requests.push(request.url ?? '');
    if (request.url !== '/client.json') {
      response.writeHead(404).end();
      return;
    }
    // the document names the URL it was asked by, so a fetch under any name for this server would succeed
    const document = metadataDocument(`https://${request.headers.host}/client.json`);
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
  });
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, clientId: `https://${host}/client.json`, host, requests, connections: () => connections };
}

let dir = '';
let script = '';
let file = '';
let caFile = '';
/** Allowed in the host list, its certificate from the authority the process trusts. */
let trusted: DocumentServer;
/** Same authority, another port on loopback: not in the host list. */
let unlisted: DocumentServer;
/** In the host list, its certificate from an authority the process was not given. */
let untrusted: DocumentServer;
let booking: RunningBooking;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'booking-cimd-https-'));
  script = bundleChild(join(here, '../src/main.ts'), join(dir, 'main.cjs'));
  file = join(dir, 'booking.db');
  const authority = await makeAuthority('Booking Test CA');
  const stranger = await makeAuthority('Unknown CA');
  caFile = join(dir, 'ca.pem');
  writeFileSync(caFile, authority.cert.toString('pem'));
  const leaf = await makeLeaf(authority);
  [trusted, unlisted, untrusted] = await Promise.all([
    serveDocument(leaf),
    serveDocument(leaf),
    serveDocument(await makeLeaf(stranger)),
  ]);
  booking = await spawnBooking(script, file, {
    NODE_EXTRA_CA_CERTS: caFile,
    BOOKING_OAUTH_METADATA_HOSTS: `${trusted.host},${untrusted.host}`,
    BOOKING_OAUTH_DYNAMIC_REGISTRATION: '',
    BOOKING_OAUTH_PRIVATE_METADATA_FETCH: '',
  });
});

afterAll(async () => {
  if (booking) {
    booking.child.kill('SIGTERM');
    await booking.exited;
  }
  for (const served of [trusted, unlisted, untrusted]) served?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An authorization request for `clientId` with PKCE for the MCP resource. */
function authorizePath(clientId: string, challenge: string): string {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'bookings.read offline_access',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: booking.url.href,
    state: 'st4te',
  });
  return `/oauth/authorize?${query}`;
}

/** Signs the demo person in with the one-time link the server printed in its banner. */
async function signedIn(): Promise<PagesBrowser> {
  const browser = new PagesBrowser(booking.url.origin);
  const link = /Sign-in link \(one use, 15 min\): (\S+)/.exec(booking.output())?.[1] ?? '';
  expect((await browser.get(new URL(link).pathname)).status).toBe(303);
  return browser;
}

/** The hidden fields of a page's form but the CSRF token (the browser sends that), as a browser submits them. */
describe('a metadata-document client served over HTTPS on loopback', () => {
  it('is fetched over verified TLS, consented to through the pages, and its token calls MCP', async () => {
    const browser = await signedIn();
    const { verifier, challenge } = pkce();
    const start = await browser.get(authorizePath(trusted.clientId, challenge));
    expect(start.status, start.text).toBe(303);
    expect(trusted.requests).toEqual(['/client.json']);
    const consentPath = new URL(start.headers.get('location') ?? '', booking.url).pathname;
    expect(consentPath).toMatch(/^\/oauth\/consent\//);
    const page = await browser.get(consentPath);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong data-client-name>Metadata Desktop</strong>');
    const fields = { ...hiddenFieldsIn(page.text), decision: 'grant', rights: ['bookings.read'] };
    const posted = await browser.post(consentPath, fields);
    expect(posted.status, posted.text).toBe(303);
    const resumed = await browser.get(new URL(posted.headers.get('location') ?? '', booking.url).pathname);
    expect(resumed.status, resumed.text).toBe(303);
    const back = new URL(resumed.headers.get('location') ?? '');
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('iss')).toBe(booking.url.origin);

    const tokens = await redeemCode(
      booking.url.origin,
      booking.url,
      { clientId: trusted.clientId, verifier },
      back,
    );
    expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
    const reply = await rawClient(booking.url, String(tokens.body.access_token)).listTools();
    expect(reply.status).toBe(200);
    const tools = ((reply.result as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);
    expect(tools).toContain('find_bookings');

    const credential = "client_label = 'OAuth: Metadata Desktop' AND creator_id = 'p_olivia'";
    expect(countIn(file, `SELECT count(*) AS n FROM gatehouse_credentials WHERE ${credential}`)).toBe(1);
    expect(
      countIn(
        file,
        "SELECT count(*) AS n FROM gatehouse_audit WHERE action = 'token.create' AND channel = 'oauth'",
      ),
    ).toBe(1);
    expect(
      countIn(
        file,
        `SELECT count(*) AS n FROM gatehouse_oauth_records WHERE model = 'Grant' AND id IN (SELECT id FROM gatehouse_credentials WHERE ${credential})`,
      ),
    ).toBe(1);
    const register = await fetch(`${booking.url.origin}/oauth/register`, { method: 'POST' });
    expect(register.status).toBe(404);
  });

  it('refuses another loopback port, another name for the allowed address, private addresses and an untrusted certificate', async () => {
    // the client is refused before anyone is asked to sign in
    const browser = new PagesBrowser(booking.url.origin);
    const interactions = "SELECT count(*) AS n FROM gatehouse_oauth_records WHERE model = 'Interaction'";
    const before = countIn(file, interactions);
    const trustedAsked = trusted.requests.length;
    const { challenge } = pkce();
    const refused = [
      unlisted.clientId,
      trusted.clientId.replace('127.0.0.1', 'localhost'),
      'https://10.0.0.1/client.json',
      'https://192.168.0.1/client.json',
      untrusted.clientId,
    ];
    const answers = await Promise.all(refused.map((id) => browser.get(authorizePath(id, challenge))));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status, refused[i]).toBe(400);
      expect(answer.text, refused[i]).toContain('<code>invalid_client</code>');
      expect(answer.headers.get('location')).toBeNull();
    }
    expect(countIn(file, interactions)).toBe(before);
    expect(trusted.requests).toHaveLength(trustedAsked);
    // both were reached over TCP, so what refused them was the address guard and TLS verification
    expect(unlisted.connections()).toBeGreaterThan(0);
    expect(unlisted.requests).toEqual([]);
    expect(untrusted.connections()).toBeGreaterThan(0);
    expect(untrusted.requests).toEqual([]);
  });

  it('refuses to start with a host list that is not host or host:port, in one line naming the variable', async () => {
    const child = spawn(process.execPath, [script], {
      env: bookingEnv(file, { BOOKING_OAUTH_METADATA_HOSTS: `${trusted.clientId}` }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(err).toMatch(
      /^Error: BOOKING_OAUTH_METADATA_HOSTS must be comma-separated host or host:port[^\n]*\n$/,
    );
  });
});
