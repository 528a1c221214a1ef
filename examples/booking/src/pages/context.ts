import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { BookingApp } from '../app.js';
import type { Person, Right } from '../domain/model.js';
import type { Membership } from '../services/people.js';

/** A signed-in person as every page sees them: live rights, their workspace, the session's CSRF token. */
export interface SignedIn {
  readonly person: Person;
  readonly workspaceName: string;
  /** The person's rights now (role, active flag), never a token's. */
  readonly rights: readonly Right[];
  /** The session token (for deriving the CSRF token and signing flash messages); never rendered. */
  readonly sessionToken: string;
  /** When the person signed in (epoch ms): the session was opened then. */
  readonly signedInAt: number;
  /** This session's CSRF token, rendered in every form. */
  readonly csrf: string;
}

/** The fields of a posted form (the last value of a repeated field is in `all`). */
export interface FormFields {
  get(name: string): string | undefined;
  all(name: string): readonly string[];
}

/** The pages' Hono environment. */
export interface PageEnv {
  Variables: {
    signedIn: SignedIn | undefined;
    form: FormFields | undefined;
  };
}

/** A page route's context. */
export type PageContext = Context<PageEnv>;

/** What the pages need from outside the app: where a request came from, for sign-in throttling. */
export interface PageOptions {
  /** The client's address (the socket's), or undefined when unknown. */
  readonly clientAddress?: (request: Request) => string | undefined;
  /** Sign-in failures allowed per account per window; default 5. */
  readonly accountFailures?: number;
  /** Sign-in failures allowed per client address per window; default 20 (offices share an address). */
  readonly addressFailures?: number;
  /** The throttle's window in milliseconds; default 15 minutes. */
  readonly windowMs?: number;
}

/** Hex SHA-256 of a string. */
export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The CSRF token bound to a secret (a session token, or `pre:` and the pre-session cookie). */
export const csrfFor = (secret: string): string => sha256(`csrf:${secret}`);

/** Compares two strings in constant time (for equal lengths). */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The signed-in person; the `signedIn` step guarantees one on every route but sign-in. */
export function signedIn(c: PageContext): SignedIn {
  const who = c.get('signedIn');
  if (!who) throw new Error('A page route ran without a signed-in person; mount it behind requireSignIn.');
  return who;
}

/** The posted form; the `readForm` step guarantees one on every POST. */
export function formOf(c: PageContext): FormFields {
  const form = c.get('form');
  if (!form) throw new Error('A POST route ran without its form; mount it behind readForm.');
  return form;
}

/** The live approver of a signed-in person, as core's approvals take it. */
export function approverOf(who: SignedIn): {
  personId: string;
  tenantId: string;
  rights: ReadonlySet<Right>;
} {
  return { personId: who.person.id, tenantId: who.person.workspaceId, rights: new Set(who.rights) };
}

/** The app's clock, now, in epoch milliseconds. */
export const nowOf = (app: BookingApp): number => app.deps.clock().getTime();

/**
 * The workspaces the signed-in person owns now (their own, then those they
 * are an active member of as owner), by name; the Switches and Audit pages
 * act on these and on no other.
 */
export async function ownedWorkspaces(app: BookingApp, who: SignedIn): Promise<readonly Membership[]> {
  return (await app.people.workspacesOf(who.person.id)).filter((m) => m.role === 'owner');
}

/**
 * The workspace a request names among `workspaces` (the person's, or those
 * they own), or the first when it names none: their own, which
 * `workspacesOf` lists first. Undefined for one not among them.
 */
export function chosenWorkspace(
  workspaces: readonly Membership[],
  named: string | undefined,
): Membership | undefined {
  return named ? workspaces.find((m) => m.workspaceId === named) : workspaces[0];
}
