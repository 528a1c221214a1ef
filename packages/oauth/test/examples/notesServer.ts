import { createCredentials, createSwitches } from '@gatehousejs/access';
import { type ConsolePerson, createConsole } from '@gatehousejs/console';
import { createGatehouse, PROTECTED_RESOURCE_PATH, protectedResourceMetadata } from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';
import {
  consentPages,
  createAuthorizationServer,
  createClientRegistry,
  forgettingGrants,
  grantAuthenticator,
  oauthSettingsFromEnv,
} from '@gatehousejs/oauth';
import { createSqliteStores, openDatabase } from '@gatehousejs/stores';
import { z } from 'zod';

const rights = ['notes.read', 'notes.write'] as const;
type Right = (typeof rights)[number];

/** What the product already has: its sign-in, and who may do what now. */
export interface Product {
  /** The signed-in person of a request (the product's session), their workspaces and rights now. */
  personOf(request: Request): Promise<ConsolePerson<Right> | undefined>;
  /** Where the product's sign-in page is, coming back to `returnTo`. */
  signInUrl(returnTo: string): string;
  /** The rights a person holds in a workspace now; undefined when not a member. */
  rightsOf(workspaceId: string, personId: string): Promise<readonly Right[] | undefined>;
  /** The notes of a workspace. */
  notesOf(workspaceId: string): Promise<readonly string[]>;
}

export async function serveNotes(product: Product, options: { file: string; origin?: string }) {
  const stores = createSqliteStores(openDatabase(options.file));
  // housekeeping: expired replay records, rate buckets and OAuth records go here, never on a request
  setInterval(() => void stores.housekeeping(Date.now()).catch(() => undefined), 60_000).unref();
  const people = {
    async current(workspaceId: string, personId: string) {
      const held = await product.rightsOf(workspaceId, personId);
      return held ? { active: true, rights: new Set(held) } : undefined;
    },
  };
  const credentials = createCredentials<Right>({
    store: stores.credentials,
    audit: stores.audit,
    rights,
    people,
  });
  const switches = createSwitches({ store: stores.switches, audit: stores.audit });
  let origin = options.origin ?? '';

  // #region authorization-server
  const oauth = createAuthorizationServer<Right>({
    store: stores.authorization,
    credentials,
    credentialStore: stores.credentials,
    scopes: {
      rights,
      words: { 'notes.read': 'Read your notes', 'notes.write': 'Write and change notes' },
      starting: ['notes.read'],
    },
    origin: () => origin,
    resourceName: 'Notes',
    settings: oauthSettingsFromEnv(process.env), // GATEHOUSE_OAUTH_JWKS, …; keys are generated and stored when unset
  });
  // #endregion authorization-server

  const gh = createGatehouse({ rights, ports: {}, services: () => ({ notes: product }) });
  const listNotes = gh.defineTool({
    name: 'list_notes',
    title: 'List notes',
    description: 'Lists the notes of the workspace.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: {
      outputSchema: { type: 'object', properties: { notes: { type: 'array', items: { type: 'string' } } } },
      present: (notes: readonly string[]) => ({ notes: [...notes] }),
    },
    run: ({ connection, services }) => services.notes.notesOf(connection.tenantId),
  });
  // #region mcp
  const server = gh.createServer({
    name: 'notes',
    version: '1.0.0',
    tools: [listNotes],
    authenticate: grantAuthenticator(oauth, people), // MCP tokens, and the access tokens issued above
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    guards: standardGuards(stores, { switches }),
  });
  // #endregion mcp

  // #region console
  const console = createConsole<Right>({
    origin: () => origin,
    signIn: { personOf: product.personOf, signInUrl: product.signInUrl },
    credentials: forgettingGrants(oauth, credentials), // revoking a grant on the Tokens page ends its tokens
    credentialStore: stores.credentials,
    switches,
    audit: stores.audit,
    modules: [consentPages(oauth)], // the consent screen at /oauth/consent/:uid
  });
  // #endregion console

  // #region listen
  const served = await listen(server, {
    port: 0,
    fetch: async (request, incoming) => {
      const { pathname } = new URL(request.url);
      if (oauth.handles(pathname)) return oauth.fetch(request, incoming);
      if (pathname.startsWith(PROTECTED_RESOURCE_PATH)) {
        const answer = protectedResourceMetadata(oauth.protectedResource(), '/mcp').fetch(request);
        if (answer) return answer;
      }
      if (console.handles(pathname)) return console.fetch(request);
      return new Response('Not found', { status: 404 });
    },
  });
  origin ||= served.url.origin;
  // #endregion listen

  // #region clients
  const clients = createClientRegistry({ server: oauth, audit: stores.audit, unitOfWork: stores.unitOfWork });
  await clients.save(
    { id: 'desk-app', name: 'Desk App', redirectUris: ['http://127.0.0.1/callback'] },
    { actorId: 'ops', channel: 'cli' },
  );
  // #endregion clients
  return { served, oauth, stores, origin };
}
