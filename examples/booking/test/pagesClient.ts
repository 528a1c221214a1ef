/**
 * A small browser for the operator pages' tests: a cookie jar, no automatic
 * redirects, the page's own Origin on every POST (unless told otherwise),
 * and the CSRF token read from the last page.
 */
import { expect } from 'vitest';
import type { TestApp } from './fixtures/testApp.js';

/** One answer: status, headers, body text and every Set-Cookie line. */
export interface Page {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly cookies: readonly string[];
}

/** What a POST sends besides its fields. */
export interface PostOptions {
  /** `null`: no Origin header; default the server's own origin. */
  readonly origin?: string | null;
  /** `null`: no csrf field; default the token of the last page seen. */
  readonly csrf?: string | null;
  readonly headers?: Record<string, string>;
}

/** The CSRF token in a page's forms. */
export const csrfIn = (html: string): string | undefined => /name="csrf" value="([^"]+)"/.exec(html)?.[1];

/**
 * The hidden fields of a page's forms but the CSRF token (which the browser
 * adds itself): what a person's browser posts back unseen, such as the
 * consent form's workspace and its seal of what was rendered.
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
export class PagesBrowser {
  readonly jar = new Map<string, string>();
  csrf: string | undefined;

  constructor(readonly origin: string) {}

  #cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async #send(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Page> {
    const cookie = this.#cookieHeader();
    if (cookie && init.headers.cookie === undefined) init.headers.cookie = cookie;
    const response = await fetch(new URL(path, this.origin), { ...init, redirect: 'manual' });
    const text = await response.text();
    const cookies = response.headers.getSetCookie();
    for (const line of cookies) {
      const [pair = '', ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const gone = attributes.some((a) => a.trim() === 'Max-Age=0');
      if (gone) this.jar.delete(name);
      else this.jar.set(name, pair.slice(at + 1));
    }
    this.csrf = csrfIn(text) ?? this.csrf;
    return { status: response.status, headers: response.headers, text, cookies };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<Page> {
    return this.#send(path, { method: 'GET', headers: { ...headers } });
  }

  post(
    path: string,
    fields: Record<string, string | readonly string[]> = {},
    options: PostOptions = {},
  ): Promise<Page> {
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

  /** Signs in with a password through the form; expects the 303. */
  async signIn(email: string, password: string, returnTo = '/approvals'): Promise<Page> {
    await this.get(`/signin?return=${encodeURIComponent(returnTo)}`);
    const page = await this.post('/signin', { email, password, return: returnTo });
    expect(page.status).toBe(303);
    return page;
  }
}

/** A fresh password for a seeded person, set through the people directory. */
export async function passwordOf(t: TestApp, personId: string): Promise<{ email: string; password: string }> {
  const person = await t.app.people.byId(personId);
  if (!person) throw new Error(`seed missing ${personId}`);
  const password = await t.app.people.resetPassword(person, { actorId: 'ops', channel: 'cli' });
  return { email: person.email, password };
}

/** Serves the app and returns a browser signed in as `personId`. */
export async function signedInBrowser(t: TestApp, personId = 'p_olivia'): Promise<PagesBrowser> {
  const serving = await t.serve();
  const browser = new PagesBrowser(serving.mcpUrl.origin);
  const { email, password } = await passwordOf(t, personId);
  await browser.signIn(email, password);
  return browser;
}
