import { type ConsolePerson, createConsole, passwordSignIn } from '@gatehousejs/console';
import { consentPages, PROVIDER_SESSION_COOKIES } from '@gatehousejs/oauth';
import type { BookingApp } from '../app.js';
import type { Right } from '../domain/model.js';

export { createSignInLink } from './signInLink.js';

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

/** A person as the console shows them: their workspaces now, their home first, owners marked. */
async function consolePerson(
  app: BookingApp,
  personId: string,
): Promise<Omit<ConsolePerson<Right>, 'session'> | undefined> {
  const person = await app.people.byId(personId);
  if (!person?.active) return undefined;
  const memberships = await app.people.workspacesOf(personId);
  return {
    id: person.id,
    name: person.name,
    operator: person.operator,
    workspaces: memberships.map((m) => ({
      id: m.workspaceId,
      name: m.name,
      owner: m.role === 'owner',
      role: m.role,
      rights: m.rights,
    })),
  };
}

/** A workspace's time zone, in which the pages show every time. */
async function zoneOf(app: BookingApp, workspaceId: string): Promise<string> {
  const row = await app.database.reader
    .selectFrom('workspaces')
    .select('zone')
    .where('id', '=', workspaceId)
    .executeTakeFirst();
  return row?.zone ?? 'UTC';
}

/**
 * The booking product's pages: `@gatehousejs/console` (approvals of person
 * actions, I9; kill switches, I6; MCP tokens, I5; the audit log, I15) with
 * its password and one-time-link sign-in on the product's people and
 * sessions, and the OAuth consent page as a console module.
 */
export function createPagesHandler(app: BookingApp, options: PageOptions = {}) {
  return createConsole<Right>({
    origin: () => app.publicUrl.get(),
    branding: { productName: 'Booking' },
    cookiePrefix: 'booking',
    signIn: passwordSignIn<Right>({
      accounts: {
        login: (email, password) => app.apiAccess.login(email, password),
        async session(token) {
          const session = await app.apiAccess.session(token);
          return session && { personId: session.person.id, signedInAt: session.signedInAt };
        },
        logout: (token) => app.apiAccess.logout(token),
        redeemLink: (token) => app.apiAccess.redeemSignInLink(token),
        person: (personId) => consolePerson(app, personId),
      },
      throttle: {
        store: app.database.stores.rateBuckets,
        accountFailures: options.accountFailures,
        addressFailures: options.addressFailures,
        windowMs: options.windowMs,
      },
      clientAddress: options.clientAddress,
      // the authorization server keeps no session of its own: a sign-in or sign-out leaves no trace of one
      clearCookies: PROVIDER_SESSION_COOKIES,
    }),
    approvals: app.mcp.approvals,
    credentials: app.credentials,
    credentialStore: app.credentialStore,
    switches: app.switches,
    audit: app.database.stores.audit,
    personNames: async (personId) => (await app.people.byId(personId))?.name,
    timeZoneOf: (workspaceId) => zoneOf(app, workspaceId),
    tokens: { toolsets: ['compact'] },
    actions: { delete_booking: { verb: 'Delete booking', done: 'Booking deleted' } },
    modules: [consentPages(app.oauth)],
    logger: app.logger,
    clock: app.deps.clock,
  });
}
