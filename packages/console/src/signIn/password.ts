import { createHash } from 'node:crypto';
import type { BucketLimit, RateBucketStore } from '@gatehousejs/core';
import { cookiesOf, setCookie } from '../internal/cookies.js';
import { html } from '../internal/html.js';
import { safeReturn } from '../internal/paths.js';
import type {
  ConsolePerson,
  ConsoleRequest,
  ConsoleSignIn,
  SignInContext,
  SignInThrottleOptions,
} from '../options.js';

/** A session the product opened for a person. */
export interface OpenedSession {
  /** The session's secret token (stored hashed by the product); it travels only in an HttpOnly cookie. */
  readonly token: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/** The product's accounts, as the console's own sign-in needs them. */
export interface PasswordAccounts<TRight extends string = string> {
  /** Checks an e-mail and a password: a new session for the person, or `undefined`. */
  login(email: string, password: string): Promise<OpenedSession | undefined>;
  /** Whose session a token is and since when; `undefined` when unknown, ended or expired. */
  session(token: string): Promise<{ readonly personId: string; readonly signedInAt: number } | undefined>;
  /** Ends a session, server-side. */
  logout(token: string): Promise<void>;
  /** Redeems a one-time sign-in link's token: a new session, or `undefined` (unknown, used or expired). */
  redeemLink?(token: string): Promise<OpenedSession | undefined>;
  /** The person as the console shows them, with their workspaces now; `undefined` when inactive or gone. */
  person(personId: string): Promise<Omit<ConsolePerson<TRight>, 'session' | 'signedInAt'> | undefined>;
}

/** Options of {@link passwordSignIn}. */
export interface PasswordSignInOptions<TRight extends string = string> {
  readonly accounts: PasswordAccounts<TRight>;
  /** Failed sign-ins per account and per client address, counted in shared rate buckets. */
  readonly throttle: SignInThrottleOptions;
  /** The client's address (the socket's), for the per-address throttle; unknown addresses share one bucket. */
  readonly clientAddress?: ((request: Request) => string | undefined) | undefined;
  /** Where a sign-in lands when it was not started from a page; default `/approvals`. */
  readonly landing?: string | undefined;
  /** Other cookies of the host to delete at sign-in and sign-out (an authorization server's own session). */
  readonly clearCookies?: readonly string[] | undefined;
}

/** The one answer for every failed or throttled sign-in: it tells an attacker nothing. */
export const SIGN_IN_FAILED = 'Sign-in failed. Check your e-mail and password, or try again later.';

const RETURN_SECONDS = 3_600;
const DEFAULT_WINDOW_MS = 15 * 60_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The outcome of asking to try a password. */
type Attempt =
  | { readonly ok: true; succeeded(): Promise<void> }
  | { readonly ok: false; readonly retryAfterSeconds: number };

/**
 * Failures per account and per address within a window, in shared rate
 * buckets (every replica sees the same counts). A try takes a token from
 * each bucket first and a success refunds both: only failures count. When
 * either bucket is empty the password is not even checked.
 */
function throttleOf(options: SignInThrottleOptions, now: () => number) {
  const store: RateBucketStore = options.store;
  const windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
  const limit = (failures: number): BucketLimit => ({
    capacity: failures,
    refillPerSecond: failures / (windowMs / 1000),
  });
  const account = limit(options.accountFailures ?? 5);
  const address = limit(options.addressFailures ?? 20);
  return async (email: string, from: string): Promise<Attempt> => {
    const at = now();
    const accountKey = `console.signin.account:${sha256(email.trim().toLowerCase())}`;
    const addressKey = `console.signin.address:${from}`;
    const byAccount = await store.take(accountKey, account, at);
    const byAddress = await store.take(addressKey, address, at);
    if (byAccount.ok && byAddress.ok) {
      return {
        ok: true,
        async succeeded() {
          await store.refund(accountKey, account, now());
          await store.refund(addressKey, address, now());
        },
      };
    }
    if (byAccount.ok) await store.refund(accountKey, account, at);
    if (byAddress.ok) await store.refund(addressKey, address, at);
    const waits = [byAccount, byAddress].map((taken) => (taken.ok ? 0 : taken.retryAfterMs));
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(Math.max(...waits) / 1000)) };
  };
}

/**
 * The console's own sign-in, for a product with none: e-mail and password
 * (throttled per account and per address in shared rate buckets, one answer
 * for every failure), one-time links (`/signin/link/:token`), and sign-out
 * that ends the session server-side. A sign-in issues a new session (the old
 * one, if any, is ended) in an HttpOnly, SameSite=Lax cookie, `__Host-`
 * prefixed where served Secure, and returns to the same-origin page it was
 * started from.
 */
export function passwordSignIn<TRight extends string>(
  options: PasswordSignInOptions<TRight>,
): (context: SignInContext) => ConsoleSignIn<TRight> {
  return (context) => {
    const sessionCookie = context.cookie('page');
    const returnCookie = context.cookie('return');
    const landing = context.path(options.landing ?? '/approvals');
    const attempt = throttleOf(options.throttle, context.now);
    const returnOf = (path: string | undefined) => safeReturn(path, context.path(''), landing);
    const cookies = (request: Request) => cookiesOf(request, context.origin());
    const foreignCleared = (secure: boolean) =>
      (options.clearCookies ?? []).map((name) => setCookie(name, '', 0, secure));

    const form = (r: ConsoleRequest<TRight>, returnTo: string, email: string) => r.page
      .html`<form data-form="signin" method="post" action="${r.page.path('/signin')}">
  ${r.page.csrfField()}
  <input type="hidden" name="return" value="${returnTo}">
  <label>E-mail <input type="email" name="email" value="${email}" autocomplete="username" required></label>
  <label>Password <input type="password" name="password" autocomplete="current-password" required></label>
  <button type="submit">Sign in</button>
</form>`;

    async function signInPage(
      r: ConsoleRequest<TRight>,
      view: {
        status: number;
        returnTo: string;
        email?: string;
        error?: string;
        headers?: Record<string, string>;
      },
    ): Promise<Response> {
      const body = html`${view.error ? html`<p class="error" role="alert">${view.error}</p>` : ''}
${form(r, view.returnTo, view.email ?? '')}
${view.returnTo === landing ? '' : html`<p data-return-note>A one-time sign-in link opened in this browser also brings you back here.</p>`}`;
      const response = await r.page.render(view.status, { title: 'Sign in', body });
      for (const [name, value] of Object.entries(view.headers ?? {})) response.headers.set(name, value);
      // a sign-in started from a page returns to it, by the form or by a one-time link
      if (view.returnTo !== landing)
        response.headers.append(
          'set-cookie',
          cookies(r.request).set(returnCookie, view.returnTo, RETURN_SECONDS),
        );
      return response;
    }

    /** Opens the session: the old one (if any) ends and a new id is issued. */
    async function opened(
      r: ConsoleRequest<TRight>,
      session: { token: string; expiresAt: number },
      location: string,
    ) {
      const jar = cookies(r.request);
      const previous = jar.read(sessionCookie);
      if (previous) await options.accounts.logout(previous);
      const response = r.page.redirect(location);
      for (const line of [
        jar.set(sessionCookie, session.token, (session.expiresAt - context.now()) / 1000),
        // the pre-session bound only the sign-in form's CSRF token: it goes with the sign-in
        jar.clear(context.cookie('presession')),
        jar.clear(returnCookie),
        ...foreignCleared(jar.secure),
      ])
        response.headers.append('set-cookie', line);
      return response;
    }

    return {
      signInUrl: (returnTo) => `${context.path('/signin')}?return=${encodeURIComponent(returnTo)}`,
      signOutPath: '/signout',
      async personOf(request) {
        const token = cookies(request).read(sessionCookie);
        const session = token ? await options.accounts.session(token) : undefined;
        if (!token || !session) return undefined;
        const person = await options.accounts.person(session.personId);
        return person && { ...person, session: token, signedInAt: session.signedInAt };
      },
      routes: {
        name: 'sign-in',
        cookies: [],
        routes: [
          {
            method: 'GET',
            path: '/signin',
            public: true,
            handler: (r) =>
              signInPage(r, {
                status: 200,
                returnTo: returnOf(r.url.searchParams.get('return') ?? undefined),
              }),
          },
          {
            method: 'POST',
            path: '/signin',
            public: true,
            async handler(r) {
              const fields = r.form!;
              const email = (fields.get('email') ?? '').slice(0, 200);
              const password = (fields.get('password') ?? '').slice(0, 200);
              const returnTo = returnOf(fields.get('return'));
              const address = options.clientAddress?.(r.request) ?? 'unknown';
              const tried = await attempt(email, address);
              if (!tried.ok) {
                context.logger.info(
                  { event: 'console', status: 429, refused: 'signin_throttled' },
                  'console',
                );
                const headers = { 'retry-after': String(tried.retryAfterSeconds) };
                return signInPage(r, { status: 429, returnTo, email, error: SIGN_IN_FAILED, headers });
              }
              const session = email && password ? await options.accounts.login(email, password) : undefined;
              if (!session) return signInPage(r, { status: 401, returnTo, email, error: SIGN_IN_FAILED });
              await tried.succeeded();
              return opened(r, session, returnTo);
            },
          },
          {
            method: 'GET',
            path: '/signin/link/:token',
            public: true,
            async handler(r) {
              const session = await options.accounts.redeemLink?.(r.params.token ?? '');
              const returnTo = returnOf(cookies(r.request).read(returnCookie));
              if (session) return opened(r, session, returnTo);
              const body = html`<p class="error">This sign-in link is unknown, used or expired. Ask for a new one.</p>
<p><a href="${r.page.path('/signin')}">Sign in with your password</a></p>`;
              return r.page.render(404, { title: 'Link not valid', body });
            },
          },
          {
            method: 'POST',
            path: '/signout',
            async handler(r) {
              await options.accounts.logout(r.person!.session);
              const jar = cookies(r.request);
              const response = r.page.redirect(context.path('/signin'));
              for (const line of [
                jar.clear(sessionCookie),
                jar.clear(returnCookie),
                ...foreignCleared(jar.secure),
              ])
                response.headers.append('set-cookie', line);
              return response;
            },
          },
        ],
      },
    };
  };
}
