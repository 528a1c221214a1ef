/** Minimal node:http shapes, so this helper needs no Node import. */
interface NodeRequestLike {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}
interface NodeResponseLike {
  writeHead(status: number, headers?: Record<string, string>): unknown;
  end(body?: string): unknown;
}

/** Refuses MCP tokens on the host's own product API routes (I5). */
export interface McpTokenRefusal {
  /** Web-standard: a 401 response when the request carries an MCP token, else undefined. */
  check(request: Request): Response | undefined;
  /** Express/connect-style middleware: answers 401 or calls `next()`. */
  middleware(request: NodeRequestLike, response: NodeResponseLike, next: () => void): void;
}

const cookieValues = (header: string | null | undefined): string[] =>
  (header ?? '').split(';').map((part) => decodeURIComponent(part.slice(part.indexOf('=') + 1).trim()));

const BODY = JSON.stringify({
  error: 'mcp_token_not_accepted',
  message: 'MCP tokens are accepted only by the MCP endpoint. Use an API token here.',
});

/**
 * Mount on product API routes: any MCP token in `Authorization` or a cookie
 * answers 401, so a token leaked from an agent configuration cannot drive
 * the product API.
 *
 * @example
 * app.use('/api', refuseMcpTokens(credentials.isMcpToken).middleware);
 */
export function refuseMcpTokens(isMcpToken: (value: string | null | undefined) => boolean): McpTokenRefusal {
  const carries = (authorization: string | null | undefined, cookie: string | null | undefined) =>
    isMcpToken(authorization) || cookieValues(cookie).some((value) => isMcpToken(value));
  const headers = { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="api"' };
  return Object.freeze({
    check(request: Request) {
      if (!carries(request.headers.get('authorization'), request.headers.get('cookie'))) return undefined;
      return new Response(BODY, { status: 401, headers });
    },
    middleware(request: NodeRequestLike, response: NodeResponseLike, next: () => void) {
      const first = (value: string | string[] | undefined) =>
        Array.isArray(value) ? value.join('; ') : value;
      if (carries(first(request.headers.authorization), first(request.headers.cookie))) {
        response.writeHead(401, headers);
        response.end(BODY);
        return;
      }
      next();
    },
  });
}
