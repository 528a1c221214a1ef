/**
 * A small browser for tests of server-rendered pages with forms (the
 * console of `@gatehousejs/console`, a product's own pages): a cookie jar,
 * no automatic redirects, the page's own Origin on every POST (unless told
 * otherwise), and the CSRF token read from the last page. It speaks to a URL
 * over HTTP, or straight to a web-standard handler.
 */

/** One answer: status, headers, body text and every Set-Cookie line. */
export interface FormPage {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly cookies: readonly string[];
}

/** What a POST sends besides its fields. */
export interface FormPostOptions {
  /** `null`: no Origin header; default the browser's origin. */
  readonly origin?: string | null;
  /** `null`: no csrf field; default the token of the last page seen. */
  readonly csrf?: string | null;
  readonly headers?: Record<string, string>;
}

/** The CSRF token in a page's forms (`<input type="hidden" name="csrf" value="…">`). */
export const csrfIn = (html: string): string | undefined => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

/**
 * The hidden fields of a page's forms but the CSRF token (which the browser
 * adds itself): what a person's browser posts back unseen.
 */
export function hiddenFieldsIn(html: string): Record<string, string> {
  const inputs = html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g);
  return Object.fromEntries(
    [...inputs].filter(([, name]) => name !== 'csrf').map(([, name, value]) => [name, value]),
  );
}

/** A cookie's value from Set-Cookie lines. */
export const cookieFrom = (lines: readonly string[], name: string): string | undefined =>
  lines
    .map((line) => line.split(';')[0] ?? '')
    .find((pair) => pair.startsWith(`${name}=`))
    ?.slice(name.length + 1);

/** A browser on one origin. */
export class FormBrowser {
  readonly jar = new Map<string, string>();
  csrf: string | undefined;
  readonly #fetch: (request: Request) => Promise<Response>;

  /** `handler`: a web-standard handler to call in process; default `fetch` over HTTP. */
  constructor(
    readonly origin: string,
    handler?: (request: Request) => Promise<Response>,
  ) {
    this.#fetch = handler ?? ((request) => fetch(request, { redirect: 'manual' }));
  }

  #cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async #send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<FormPage> {
    const cookie = this.#cookieHeader();
    if (cookie && init.headers.cookie === undefined) init.headers.cookie = cookie;
    const response = await this.#fetch(
      new Request(new URL(path, this.origin), { ...init, redirect: 'manual' }),
    );
    const text = await response.text();
    const cookies = response.headers.getSetCookie();
    for (const line of cookies) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      if (attributes.some((a) => a.trim() === 'Max-Age=0')) this.jar.delete(name);
      else this.jar.set(name, pair.slice(at + 1));
    }
    this.csrf = csrfIn(text) ?? this.csrf;
    return { status: response.status, headers: response.headers, text, cookies };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<FormPage> {
    return this.#send(path, { method: 'GET', headers: { ...headers } });
  }

  post(
    path: string,
    fields: Record<string, string | readonly string[]> = {},
    options: FormPostOptions = {},
  ): Promise<FormPage> {
    const body = new URLSearchParams();
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    if (csrf !== null && csrf !== undefined) body.append('csrf', csrf);
    for (const [name, value] of Object.entries(fields)) {
      for (const item of typeof value === 'string' ? [value] : value) body.append(name, item);
    }
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      ...options.headers,
    };
    const origin = options.origin === undefined ? this.origin : options.origin;
    if (origin !== null) headers.origin = origin;
    return this.#send(path, { method: 'POST', headers, body: body.toString() });
  }

  /**
   * Signs in through a password form (`passwordSignIn` of `@gatehousejs/console`
   * at `signInPath`); throws unless it answers the 303 of a sign-in.
   */
  async signIn(
    email: string,
    password: string,
    returnTo = '/approvals',
    signInPath = '/signin',
  ): Promise<FormPage> {
    await this.get(`${signInPath}?return=${encodeURIComponent(returnTo)}`);
    const page = await this.post(signInPath, { email, password, return: returnTo });
    if (page.status !== 303) throw new Error(`Sign-in answered ${page.status}, not 303.`);
    return page;
  }
}
