/**
 * Cookie tossing in a real browser: cookies ignore ports, so a page on
 * another port of the product's host can set cookies the product receives.
 * A second `booking_page` on a path under the pages (`Path=/approvals`) is
 * refused, never read, and both copies deleted. Served Secure (a TLS front on
 * a host name that is not loopback), the session cookie is
 * `__Host-booking_page`, which a plain-http page of the same host can
 * neither set nor shadow: the person stays who they are.
 */
import 'reflect-metadata';
import { once } from 'node:events';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import * as x509 from '@peculiar/x509';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  browserAvailable,
  describeWithBrowser,
  launchBrowser,
  type TestBrowser,
} from '../../../../test/chromium.js';
import { cookieTosser } from '../../../../test/crossSite.js';
import { browserSuite, openSite, PEOPLE, type Site } from './site.js';

const availability = await browserAvailable();

/** Who the pages say is signed in on `path` (the header's person), or the page's title when there is none. */
async function shownAs(
  page: import('playwright-core').Page,
  url: string,
): Promise<{ status: number; who: string }> {
  const response = await page.goto(url);
  const person = page.locator('[data-person]');
  const who =
    ((await person.count()) > 0 ? await person.textContent() : await page.locator('h1').textContent()) ?? '';
  return { status: response?.status() ?? 0, who };
}

describeWithBrowser(availability, 'cookies planted from another port', () => {
  const suite = browserSuite();

  it('refuses a second session cookie on a path under the pages, reading neither, and deletes both', async () => {
    await using site = await openSite(suite.template);
    const context = await suite.browser.person();
    const page = await site.signIn(context, PEOPLE.olivia, '/tokens');
    expect((await shownAs(page, `${site.origin}/tokens`)).who).toBe('Olivia Owner');
    const dans = (await site.t.app.apiAccess.openSession(PEOPLE.dan)).token;
    await using neighbour = await cookieTosser([`booking_page=${encodeURIComponent(dans)}; Path=/approvals`]);
    await page.goto(neighbour.url('127.0.0.1'));

    const refused = await shownAs(page, `${site.origin}/approvals`);
    expect(refused).toEqual({ status: 400, who: 'Conflicting cookies' });
    expect(await page.locator('main').textContent()).toContain('Serve the console on a host name of its own');
    // both copies went with the refusal: the next page asks for a sign-in, as nobody
    await page.goto(`${site.origin}/approvals`);
    expect(new URL(page.url()).pathname).toBe('/signin');
    const left = await context.cookies(site.origin);
    expect(left.filter((cookie) => cookie.name === 'booking_page')).toEqual([]);
  });
});

/** A leaf certificate for `host`, self-signed (the browser is told to accept it), as PEM. */
async function selfSigned(host: string): Promise<{ cert: string; key: string }> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${host}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 3_600_000),
    keys,
    signingAlgorithm: algorithm,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: host }])],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  return { cert: cert.toString('pem'), key: x509.PemConverter.encode(pkcs8, 'PRIVATE KEY') };
}

/** A TLS front on 127.0.0.1 that pipes every connection to `target()` (the product's plain-http port). */
async function tlsFront(target: () => number): Promise<{ port: number } & AsyncDisposable> {
  const server: TlsServer = createTlsServer(await selfSigned(HOST));
  server.on('secureConnection', (socket) => {
    const upstream = connect(target(), '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end);
    upstream.on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A host name that is not loopback to the browser (so plain http there is not a secure context). */
const HOST = 'booking.test';

describeWithBrowser(availability, 'a session cookie served Secure under __Host-', () => {
  const suite = browserSuite();
  let browser: TestBrowser;
  beforeAll(async () => {
    browser = await launchBrowser([
      `--host-resolver-rules=MAP ${HOST} 127.0.0.1`,
      '--ignore-certificate-errors',
    ]);
  });
  afterAll(() => browser?.close());

  it('is neither overwritten nor shadowed by a plain-http page on another port of the host', async () => {
    let productPort = 0;
    await using front = await tlsFront(() => productPort);
    const origin = `https://${HOST}:${front.port}`;
    await using site: Site = await openSite(suite.template, { publicUrl: origin });
    productPort = Number(new URL(site.origin).port);
    const context = await browser.person();
    const page = await context.newPage();
    const { email, password } = await site.credentialsOf(PEOPLE.olivia);
    await page.goto(`${origin}/signin?return=/tokens`);
    await page.locator('form[data-form=signin] input[name=email]').fill(email);
    await page.locator('form[data-form=signin] input[name=password]').fill(password);
    await Promise.all([
      page.waitForURL((url) => url.pathname === '/tokens'),
      page.getByRole('button', { name: 'Sign in' }).click(),
    ]);
    const session = (await context.cookies(origin)).find((cookie) => cookie.name === '__Host-booking_page');
    expect(session).toMatchObject({ secure: true, httpOnly: true, path: '/' });

    const dans = encodeURIComponent((await site.t.app.apiAccess.openSession(PEOPLE.dan)).token);
    await using neighbour = await cookieTosser([
      `__Host-booking_page=${dans}; Path=/; Secure`,
      `booking_page=${dans}; Path=/`,
      `booking_page=${dans}; Path=/approvals`,
    ]);
    await page.goto(neighbour.url(HOST));
    // the plain-http page could set only its unprefixed cookies, which the pages never read when served Secure
    const kept = (await context.cookies(origin)).filter((cookie) => cookie.name === '__Host-booking_page');
    expect(kept.map((cookie) => cookie.value)).toEqual([session?.value]);
    expect(await shownAs(page, `${origin}/tokens`)).toEqual({ status: 200, who: 'Olivia Owner' });
    expect(await shownAs(page, `${origin}/approvals`)).toEqual({ status: 200, who: 'Olivia Owner' });
  });
});
