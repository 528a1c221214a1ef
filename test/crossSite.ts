// Another site for cross-site tests: a second local server, on another port,
// whose page auto-submits a form to a URL of the product under test, or
// plants cookies the product receives (cookies ignore ports).
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A page that posts a form elsewhere as soon as it loads. */
export interface CrossSite extends AsyncDisposable {
  /** The attacker's page on `host` (`127.0.0.1`: same site as the product, another origin; `localhost`: another site). */
  pageUrl(host: '127.0.0.1' | 'localhost'): string;
  close(): Promise<void>;
}

const escapeAttribute = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Serves, on a free loopback port, a page that auto-submits `fields` to `action` by POST. */
export async function crossSite(action: string, fields: Record<string, string>): Promise<CrossSite> {
  const inputs = Object.entries(fields)
    .map(
      ([name, value]) =>
        `<input type="hidden" name="${escapeAttribute(name)}" value="${escapeAttribute(value)}">`,
    )
    .join('');
  const html = `<!doctype html><title>You won a prize</title>
<form id="f" method="post" action="${escapeAttribute(action)}">${inputs}</form>
<script>document.getElementById('f').submit();</script>`;
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return {
    pageUrl: (host) => `http://${host}:${port}/`,
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** A page on another port of the same host that sets the given cookies (Set-Cookie lines) when opened. */
export async function cookieTosser(
  setCookies: readonly string[],
): Promise<{ url: (host: string) => string } & AsyncDisposable> {
  const server: Server = createServer((request, response) => {
    // only the page sets them: a late /favicon.ico answer must not plant them again after a refusal
    if (request.url !== '/') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html', 'set-cookie': [...setCookies] });
    response.end('<!doctype html><title>A neighbour</title><p>Nothing to see.</p>');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: (host) => `http://${host}:${port}/`,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
