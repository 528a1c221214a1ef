import { createHash, randomBytes } from 'node:crypto';
import type { Credentials, Switches } from '@gatehousejs/access';
import { type Console, createConsole, type OpenedSession, passwordSignIn } from '@gatehousejs/console';
import type { Approvals } from '@gatehousejs/core';
import type { Database } from './db/database.js';
import { type People, type Right, WORKSPACES } from './people.js';

const SESSION_MS = 8 * 3_600_000;
const LINK_MS = 15 * 60_000;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/**
 * Sign-in for the console's pages with one-time links (`npm start` prints
 * one): sessions and links live in memory, stored by hash, so a restart
 * signs everyone out. The starter has no passwords; put your product's
 * own sign-in in `login` (or give the console your sessions with `personOf`).
 */
class LinkSignIn {
  readonly #links = new Map<string, { personId: string; expiresAt: number }>();
  readonly #sessions = new Map<string, { personId: string; signedInAt: number; expiresAt: number }>();

  constructor(
    private readonly people: People,
    private readonly now: () => number,
  ) {}

  /** A new one-time sign-in token for a person, valid for 15 minutes. */
  link(personId: string): string {
    const token = newToken();
    this.#links.set(hash(token), { personId, expiresAt: this.now() + LINK_MS });
    return token;
  }

  async login(): Promise<OpenedSession | undefined> {
    return undefined;
  }

  async redeemLink(token: string): Promise<OpenedSession | undefined> {
    const link = this.#links.get(hash(token));
    this.#links.delete(hash(token));
    if (!link || link.expiresAt <= this.now()) return undefined;
    return this.#open(link.personId);
  }

  async session(token: string) {
    const session = this.#sessions.get(hash(token));
    if (!session || session.expiresAt <= this.now()) return undefined;
    return { personId: session.personId, signedInAt: session.signedInAt };
  }

  async logout(token: string): Promise<void> {
    this.#sessions.delete(hash(token));
  }

  /** The person as the console shows them, with their workspace and rights now. */
  async person(personId: string) {
    const person = this.people.get(personId);
    if (!person?.active) return undefined;
    const workspace = WORKSPACES.find((w) => w.id === person.workspaceId);
    return {
      id: person.id,
      name: person.name,
      operator: person.operator === true,
      workspaces: [
        {
          id: person.workspaceId,
          name: workspace?.name ?? person.workspaceId,
          owner: person.role === 'owner',
          rights: this.people.rightsOf(person),
        },
      ],
    };
  }

  #open(personId: string): OpenedSession {
    const token = newToken();
    const now = this.now();
    this.#sessions.set(hash(token), { personId, signedInAt: now, expiresAt: now + SESSION_MS });
    return { token, expiresAt: now + SESSION_MS };
  }
}

/** What the console is built from. */
export interface ConsoleParts<THandle> {
  readonly origin: () => string;
  readonly database: Database<THandle>;
  readonly people: People;
  readonly approvals: Approvals<Right> | undefined;
  readonly credentials: Credentials<Right>;
  readonly switches: Switches;
  readonly clock: () => Date;
}

/** The console's pages and a way to sign a person in to them. */
export interface TicketsConsole {
  /** Answers a request for a page (anything but the MCP endpoint). */
  readonly fetch: Console['fetch'];
  /** A one-time sign-in link to the console for a person (15 minutes). */
  signInLink(personId: string): string;
}

/**
 * The person's pages (`@gatehousejs/console`): approvals of `delete_ticket`,
 * kill switches, MCP tokens (minted and revoked there) and the audit log.
 * Served beside the MCP endpoint on the same port.
 */
export function ticketsConsole<THandle>(parts: ConsoleParts<THandle>): TicketsConsole {
  const now = () => parts.clock().getTime();
  const accounts = new LinkSignIn(parts.people, now);
  const console = createConsole<Right>({
    origin: parts.origin,
    branding: { productName: 'Tickets' },
    signIn: passwordSignIn({ accounts, throttle: { store: parts.database.stores.rateBuckets } }),
    approvals: parts.approvals,
    credentials: parts.credentials,
    credentialStore: parts.database.stores.credentials,
    switches: parts.switches,
    audit: parts.database.stores.audit,
    personNames: async (id) => parts.people.get(id)?.name,
    clock: parts.clock,
  });
  return {
    fetch: (request) => console.fetch(request),
    signInLink: (personId) => `${parts.origin()}/signin/link/${accounts.link(personId)}`,
  };
}
