import type { Html, SignedIn } from '../options.js';
import { type ConsoleContext, csrfFor, type Runtime, sha256 } from './context.js';
import { cookiesOf } from './cookies.js';
import { html } from './html.js';
import { type NavLink, navFor, render, seeOther } from './layout.js';
import { timeHtml } from './time.js';

const FLASH_MAX = 300;

/** What every page of the console renders and answers with. */
export interface Kit {
  readonly runtime: Runtime;
  /** A page in the layout, for the request's person (if any), with its navigation. */
  render(
    c: ConsoleContext,
    status: number,
    parts: { title: string; body: Html; flash?: string | undefined },
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** A page that says why nothing was shown and what to do. */
  error(
    c: ConsoleContext,
    status: number,
    title: string,
    message: string,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** A 303 to a console path, carrying a one-time message for the next page, signed with the session. */
  seeOther(c: ConsoleContext, path: string, message?: string): Response;
  /** The one-time message the request carries, if signed for this session, and the header that clears it. */
  takeFlash(c: ConsoleContext): { message: string | undefined; clear: Record<string, string> };
  /** A time in the workspace's zone, named, with how far from now; UTC in its title. */
  time(ms: number, workspaceId: string): Promise<Html>;
  /** The CSRF token of the request: the person's session's, or the visitor's pre-session. */
  csrf(c: ConsoleContext): string;
}

const flashMac = (who: SignedIn, message: string) => sha256(`flash:${who.session}:${message}`).slice(0, 32);

/** The kit of one console: its runtime and the navigation its modules add. */
export function kitOf(runtime: Runtime, extraNav: readonly NavLink[]): Kit {
  const cookies = (c: ConsoleContext) => cookiesOf(c.req.raw, runtime.origin());
  const flashName = runtime.cookie('flash');
  const kit: Kit = {
    runtime,
    render(c, status, parts, headers) {
      const who = c.get('person');
      const nav = who ? navFor(runtime, who, extraNav) : undefined;
      return render(runtime, status, { ...parts, who, nav, current: new URL(c.req.url).pathname }, headers);
    },
    error(c, status, title, message, headers) {
      return kit.render(
        c,
        status,
        { title, body: html`<p class="error" role="alert">${message}</p>` },
        headers,
      );
    },
    seeOther(c, path, message) {
      const who = c.get('person');
      if (!message || !who) return seeOther(runtime.path(path));
      const text = message.slice(0, FLASH_MAX);
      const value = `${Buffer.from(text).toString('base64url')}.${flashMac(who, text)}`;
      return seeOther(runtime.path(path), [cookies(c).set(flashName, value, 60)]);
    },
    takeFlash(c) {
      const who = c.get('person');
      const jar = cookies(c);
      const value = jar.read(flashName);
      if (value === undefined || !who) return { message: undefined, clear: {} };
      const clear = { 'set-cookie': jar.clear(flashName) };
      const [encoded = '', mac = ''] = value.split('.');
      const message = Buffer.from(encoded, 'base64url').toString('utf8');
      return { message: mac === flashMac(who, message) ? message : undefined, clear };
    },
    async time(ms, workspaceId) {
      return timeHtml(ms, await runtime.zoneOf(workspaceId), runtime.now());
    },
    csrf(c) {
      const who = c.get('person');
      if (who) return who.csrf;
      const pre = c.get('presession');
      if (!pre) throw new Error('A public console page rendered a form without a pre-session.');
      return csrfFor(`pre:${pre}`);
    },
  };
  return kit;
}
