/**
 * A minimal product that is its own MCP authorization server: a help desk
 * with two workspaces, one read tool, its own sign-in (a session cookie it
 * sets), the console for the consent page and tokens, and
 * `@gatehousejs/oauth` in front of the MCP endpoint. Its stores are memory,
 * SQLite or PostgreSQL; every request goes over real HTTP through core's
 * `listen`, the way a team mounts it.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createCredentials, createSwitches, type PeopleSource } from '@gatehousejs/access';
import { createConsole } from '@gatehousejs/console';
import {
  type AuditStore,
  type AuthorizationStore,
  type CredentialDirectory,
  type CredentialStore,
  createGatehouse,
  MemoryAuditStore,
  MemoryAuthorizationStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  type PendingActionStore,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  type RateBucketStore,
  type ReplayStore,
  type SwitchStore,
  separateCommits,
  type UnitOfWork,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';
import { createSqliteStores, openDatabase } from '@gatehousejs/stores';
import { createPostgresPool, createPostgresStores } from '@gatehousejs/stores/postgres';
import { z } from 'zod';
import {
  consentPages,
  createAuthorizationServer,
  createClientRegistry,
  forgettingGrants,
  grantAuthenticator,
  type OAuthScopes,
  type OAuthSettings,
} from '../src/index.js';

export const RIGHTS = ['tickets.read', 'tickets.write'] as const;
export type Right = (typeof RIGHTS)[number];

// #region scopes
/** The desk's scopes: one per right, the words the consent page shows, what a client starts with. */
export const DESK_SCOPES: OAuthScopes<Right> = {
  rights: RIGHTS,
  words: {
    'tickets.read': 'See tickets and their customers',
    'tickets.write': 'Reply to tickets and change their status',
  },
  starting: ['tickets.read'],
};
// #endregion scopes

interface Person {
  readonly id: string;
  readonly name: string;
  /** Workspace → the rights held there now. */
  readonly rights: Record<string, readonly Right[]>;
}

/** Ada owns Acme (both rights); Ben reads Acme and writes in Bolt. Tests change rights at will. */
export function deskPeople(): Record<string, Person> {
  return {
    ada: { id: 'p_ada', name: 'Ada', rights: { ws_acme: ['tickets.read', 'tickets.write'] } },
    ben: {
      id: 'p_ben',
      name: 'Ben',
      rights: { ws_acme: ['tickets.read'], ws_bolt: ['tickets.read', 'tickets.write'] },
    },
  };
}

const WORKSPACES: Readonly<Record<string, string>> = { ws_acme: 'Acme', ws_bolt: 'Bolt' };
const TICKETS: Readonly<Record<string, readonly string[]>> = {
  ws_acme: ['Printer on fire', 'Refund for order 7'],
  ws_bolt: ['Bolt ticket'],
};

/** The stores a desk runs on. */
export interface DeskStores {
  readonly authorization: AuthorizationStore;
  readonly audit: AuditStore;
  readonly credentials: CredentialStore & CredentialDirectory;
  readonly switches: SwitchStore;
  readonly replay: ReplayStore;
  readonly pendingActions: PendingActionStore;
  readonly rateBuckets: RateBucketStore;
  readonly unitOfWork: UnitOfWork;
  /** Rows of a query, for assertions. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

export function memoryStores(): DeskStores {
  const audit = new MemoryAuditStore();
  return {
    authorization: new MemoryAuthorizationStore(),
    audit,
    credentials: new MemoryCredentialStore(),
    switches: new MemorySwitchStore(),
    replay: new MemoryReplayStore(),
    pendingActions: new MemoryPendingActionStore(),
    rateBuckets: new MemoryRateBucketStore(),
    unitOfWork: separateCommits(),
    rows: async () => {
      throw new Error('memory stores have no SQL');
    },
    close: async () => undefined,
  };
}

export function sqliteStores(
  file: string,
): DeskStores & { readonly stores: ReturnType<typeof createSqliteStores> } {
  const db = openDatabase(file);
  const stores = createSqliteStores(db);
  return {
    ...stores,
    stores,
    rows: async (sql) => db.prepare(sql).all() as Record<string, unknown>[],
    close: async () => {
      stores.close(); // the stores' bookkeeping connection, then the host's
      db.close();
    },
  };
}

export async function postgresStores(
  url: string,
): Promise<DeskStores & { readonly stores: Awaited<ReturnType<typeof createPostgresStores>> }> {
  const pool = createPostgresPool({ connectionString: url, max: 4 });
  const stores = await createPostgresStores(pool);
  return {
    ...stores,
    stores,
    rows: async (sql) => (await pool.query(sql)).rows as Record<string, unknown>[],
    close: async () => {
      if (!pool.ended) await pool.end();
    },
  };
}

/** What a desk is started with. */
export interface DeskOptions {
  readonly stores: DeskStores;
  readonly people?: Record<string, Person>;
  readonly settings?: OAuthSettings;
  /** The public origin when it is not this process's own address (replicas behind one name). */
  readonly publicOrigin?: string;
  /** The product's session store (replicas share one); default a new one. */
  readonly sessions?: Map<string, { readonly personId: string; readonly at: number }>;
}

/** Starts a desk on a loopback port; `close()` stops it (the stores stay open). */
export async function startDesk(options: DeskOptions) {
  const people = options.people ?? deskPeople();
  const byId = (id: string) => Object.values(people).find((p) => p.id === id);
  const { stores } = options;
  const liveRights: PeopleSource<Right> = {
    async current(tenantId, personId) {
      const rights = byId(personId)?.rights[tenantId];
      return rights ? { active: true, rights: new Set(rights) } : undefined;
    },
  };
  const credentials = createCredentials<Right>({
    store: stores.credentials,
    audit: stores.audit,
    rights: RIGHTS,
    people: liveRights,
  });
  const switches = createSwitches({ store: stores.switches, audit: stores.audit });
  let origin = '';

  // #region server
  const oauth = createAuthorizationServer<Right>({
    store: stores.authorization, // stores.authorization of @gatehousejs/stores: shared by replicas
    credentials, // a consent mints a credential; a revoked grant revokes it
    credentialStore: stores.credentials,
    scopes: DESK_SCOPES,
    origin: () => origin, // the public origin, here known once listening
    settings: options.settings ?? {},
  });
  const revoking = forgettingGrants(oauth, credentials); // a revoked credential ends its grant's tokens
  // #endregion server

  const gh = createGatehouse({ rights: RIGHTS, ports: {}, services: () => ({}) });
  const listTickets = gh.defineTool({
    name: 'list_tickets',
    title: 'List tickets',
    description: 'Lists the open tickets of the workspace.',
    effect: 'read',
    requires: ['tickets.read'],
    input: z.object({}),
    presenter: {
      outputSchema: {
        type: 'object',
        properties: { tickets: { type: 'array', items: { type: 'string' } } },
        required: ['tickets'],
      },
      present: (tickets: readonly string[]) => ({ tickets: [...tickets] }),
    },
    run: ({ connection }) => TICKETS[connection.tenantId] ?? [],
  });
  const mcp = gh.createServer({
    name: 'desk',
    version: '1.0.0',
    tools: [listTickets],
    authenticate: grantAuthenticator(oauth, liveRights), // MCP tokens, and this server's access tokens
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    guards: standardGuards(
      { replay: stores.replay, pendingActions: stores.pendingActions, rateBuckets: stores.rateBuckets },
      { switches },
    ),
  });

  // the desk's own sign-in: a session cookie it sets; the console only asks who it is
  const sessions = options.sessions ?? new Map<string, { readonly personId: string; readonly at: number }>();
  const personOf = async (request: Request) => {
    const token = /(?:^|; )desk_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    const session = token ? sessions.get(token) : undefined;
    const person = session ? byId(session.personId) : undefined;
    if (!person || !token || !session) return undefined;
    const workspaces = Object.entries(person.rights).map(([id, rights]) => ({
      id,
      name: WORKSPACES[id] ?? id,
      owner: false,
      rights,
    }));
    return { id: person.id, name: person.name, session: token, signedInAt: session.at, workspaces };
  };

  // #region console
  const console = createConsole<Right>({
    origin: () => origin,
    signIn: {
      personOf,
      signInUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
      cookies: ['desk_session'],
    },
    credentials: revoking,
    credentialStore: stores.credentials,
    switches,
    audit: stores.audit,
    modules: [consentPages(oauth)], // the consent screen, with the console's sign-in, Origin and CSRF checks
  });
  // #endregion console

  /** Signs a person in (the desk's login form stands for any product sign-in); the session cookie. */
  const signIn = (personId: string, at = Date.now()) => {
    const token = randomBytes(16).toString('hex');
    sessions.set(token, { personId, at });
    return token;
  };

  // #region listen
  const served = await listen(mcp, {
    port: 0,
    fetch: async (request: Request, incoming?: IncomingMessage) => {
      const { pathname } = new URL(request.url);
      if (oauth.handles(pathname)) return oauth.fetch(request, incoming);
      if (pathname.startsWith(PROTECTED_RESOURCE_PATH))
        return protectedResourceMetadata(oauth.protectedResource(), '/mcp').fetch(request) ?? notFound();
      if (console.handles(pathname)) return console.fetch(request);
      return notFound();
    },
  });
  // #endregion listen
  origin = options.publicOrigin ?? served.url.origin;
  const clients = createClientRegistry({ server: oauth, audit: stores.audit, unitOfWork: stores.unitOfWork });
  return {
    origin,
    /** Where this process listens (the public origin may be another's). */
    address: served.url.origin,
    mcpUrl: new URL('/mcp', origin),
    oauth,
    credentials: revoking,
    clients,
    people,
    signIn,
    close: () => served.close(),
  };
}

const notFound = () => new Response('Not found', { status: 404 });

export type Desk = Awaited<ReturnType<typeof startDesk>>;
