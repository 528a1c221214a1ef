// Another site for cross-site tests: a second local server, on another port,
// whose page auto-submits a form to a URL of the booking product.
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
