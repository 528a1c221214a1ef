import { createHash, timingSafeEqual } from 'node:crypto';
import { type Logger, silentLogger } from '@gatehousejs/core';
import type { Context } from 'hono';
import type { ConsoleOptions, ConsoleSignIn, FormFields, SignedIn } from '../options.js';
import { basePathOf } from './paths.js';
import { knownZone } from './time.js';

/** Hex SHA-256 of a string. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The CSRF token bound to a secret: a person's session, or `pre:` and the pre-session cookie. */
export const csrfFor = (secret: string): string => sha256(`csrf:${secret}`);

/** Compares two strings in constant time (for equal lengths). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The console's options resolved once: defaults filled, values checked. */
export interface Runtime {
  readonly options: ConsoleOptions;
  /** The sign-in, resolved (a sign-in the console serves is built with the console's context). */
  readonly signIn: ConsoleSignIn;
  /** `''` or `/console`. */
  readonly base: string;
  readonly origin: () => string;
  readonly productName: string;
  readonly logoUrl: string | undefined;
  readonly logger: Logger;
  readonly now: () => number;
  /** A cookie's base name with the console's prefix (`flash` → `console_flash`). */
  cookie(name: string): string;
  /** The IANA zone of a workspace; UTC when the host names none or one this runtime does not know. */
  zoneOf(workspaceId: string): Promise<string>;
  /** A person's name for a record, else their id. */
  nameOf(personId: string): Promise<string>;
  /** A console path with the base path in front. */
  path(path: string): string;
}

const PREFIX = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/** Resolves and checks the options; a bad one throws naming the option. */
export function runtimeOf(options: ConsoleOptions): Runtime {
  const base = basePathOf(options.basePath);
  const prefix = options.cookiePrefix ?? 'console';
  if (!PREFIX.test(prefix))
    throw new TypeError('createConsole: cookiePrefix must be letters, digits and _ (1–32).');
  const origin = typeof options.origin === 'function' ? options.origin : () => options.origin as string;
  if (typeof options.origin === 'string') new URL(options.origin);
  for (const name of ['credentials', 'credentialStore', 'switches', 'audit', 'signIn'] as const) {
    if (!options[name]) throw new TypeError(`createConsole: ${name} is required.`);
  }
  if (typeof options.credentialStore.list !== 'function')
    throw new TypeError('createConsole: credentialStore must list credentials (a CredentialDirectory).');
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? silentLogger;
  const now = () => clock().getTime();
  const cookie = (name: string) => `${prefix}_${name}`;
  const path = (p: string) => `${base}${p}`;
  const signIn =
    typeof options.signIn === 'function'
      ? options.signIn({ origin, path, cookie, now, logger })
      : options.signIn;
  if (typeof signIn?.personOf !== 'function' || typeof signIn.signInUrl !== 'function')
    throw new TypeError('createConsole: signIn needs personOf(request) and signInUrl(returnTo).');
  return {
    options,
    signIn,
    base,
    origin,
    productName: options.branding?.productName ?? 'Gatehouse',
    logoUrl: options.branding?.logoUrl,
    logger,
    now,
    cookie,
    async zoneOf(workspaceId) {
      const zone = (await options.timeZoneOf?.(workspaceId)) ?? 'UTC';
      return knownZone(zone) ? zone : 'UTC';
    },
    async nameOf(personId) {
      return (await options.personNames?.(personId)) ?? personId;
    },
    path,
  };
}

/** The console's Hono environment. */
export interface ConsoleEnv {
  Variables: {
    person: SignedIn | undefined;
    form: FormFields | undefined;
    /** The pre-session secret of a visitor not signed in (binds a public form's CSRF token). */
    presession: string | undefined;
  };
}

/** A console route's context. */
export type ConsoleContext = Context<ConsoleEnv>;

/** The signed-in person; the sign-in step guarantees one on every route but the public ones. */
export function signedIn(c: ConsoleContext): SignedIn {
  const who = c.get('person');
  if (!who) throw new Error('A console route ran without a signed-in person.');
  return who;
}

/** The posted form; the form step guarantees one on every POST. */
export function formOf(c: ConsoleContext): FormFields {
  const form = c.get('form');
  if (!form) throw new Error('A POST route ran without its form.');
  return form;
}
