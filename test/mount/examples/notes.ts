/**
 * The small notes product every mounting example serves: one read tool
 * behind MCP tokens of `@gatehousejs/access`, and the console under
 * `/console` behind the product's own sign-in (a session cookie). Everything
 * lives in memory stores, so the MCP endpoint and the console share it when
 * mounted in one process.
 */
import { createCredentials, createSwitches } from '@gatehousejs/access';
import { type ConsolePerson, createConsole } from '@gatehousejs/console';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemorySwitchStore,
  type OnError,
} from '@gatehousejs/core';
import type { HttpOptions } from '@gatehousejs/core/http';
import { standardGuards } from '@gatehousejs/guards';
import { definePresenter, field } from '@gatehousejs/presenters';
import { z } from 'zod';

const rights = ['notes.read'] as const;
type Right = (typeof rights)[number];

const NOTES = [
  { id: 'n1', workspace: 'ws_acme', text: 'Call Ada about the boiler', secret: 'never shown' },
  { id: 'n2', workspace: 'ws_acme', text: 'Order boiler parts', secret: 'never shown' },
];

/** Options of {@link notesProduct}. */
export interface NotesOptions {
  /** The console's public origin (known once the framework listens). */
  readonly origin: () => string;
  /** The server's error hook; the examples pass it to the console's listener too. */
  readonly onError?: OnError;
}

/** The notes product: its Gatehouse server, its console, the options of its MCP endpoint. */
export function notesProduct(options: NotesOptions) {
  const audit = new MemoryAuditStore();
  const credentialStore = new MemoryCredentialStore();
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  // Ada owns the one workspace; the product's sign-in gives her a session cookie
  const people = {
    async current(workspaceId: string, personId: string) {
      const member = workspaceId === 'ws_acme' && personId === 'p_ada';
      return member ? { active: true, rights: new Set<Right>(rights) } : undefined;
    },
  };
  const credentials = createCredentials<Right>({ store: credentialStore, audit, rights, people });

  const gh = createGatehouse({
    rights,
    services: (connection) => ({ notes: NOTES.filter((n) => n.workspace === connection.tenantId) }),
  });
  const noteFields = field.object({ id: field.string(), text: field.string() });
  const findNotes = gh.defineTool({
    name: 'find_notes',
    description: 'Finds notes in this workspace whose text contains the query.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({ query: z.string().min(1) }),
    presenter: definePresenter({ fields: { notes: field.list(noteFields) } }),
    run: ({ input, services }) => ({ notes: services.notes.filter((n) => n.text.includes(input.query)) }),
  });
  const server = gh.createServer({
    name: 'notes',
    version: '1.0.0',
    tools: [findNotes],
    guards: standardGuards({}, { switches }),
    authenticate: credentials.authenticate,
    ...(options.onError ? { onError: options.onError } : {}),
  });

  /** The MCP endpoint's options, the same under `listen` and every framework. */
  const mcp: HttpOptions = {
    resourceMetadataUrl: 'https://notes.example/.well-known/oauth-protected-resource/mcp',
    maxBodyBytes: 1_572_864, // 1.5 MiB: more than express.json() (100 kB) or Fastify (1 MiB) take by default
  };

  const sessions = new Map<string, string>();
  const personOf = async (request: Request): Promise<ConsolePerson<Right> | undefined> => {
    const session = /(?:^|; )notes_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    if (session === undefined || sessions.get(session) !== 'p_ada') return undefined;
    const workspaces = [{ id: 'ws_acme', name: 'Acme', owner: true, rights: [...rights] }];
    return { id: 'p_ada', name: 'Ada', session, workspaces };
  };
  const console = createConsole<Right>({
    origin: options.origin,
    basePath: '/console', // every link, form and redirect carries it; the console sees the whole path
    signIn: {
      personOf,
      signInUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
      cookies: ['notes_session'],
    },
    credentials,
    credentialStore,
    switches,
    audit,
  });

  return {
    server,
    console,
    mcp,
    switches,
    audit,
    /** Signs Ada in to the product: the value of her `notes_session` cookie. */
    signIn(session: string): string {
      sessions.set(session, 'p_ada');
      return session;
    },
    /** An MCP token of Ada's for the workspace, as the console's Tokens page would mint it. */
    async token(): Promise<string> {
      const minted = await credentials.mint({
        tenantIds: ['ws_acme'],
        creatorId: 'p_ada',
        rights: ['notes.read'],
        clientLabel: 'Notes assistant',
      });
      return minted.token;
    },
  };
}

/** One notes product. */
export type NotesProduct = ReturnType<typeof notesProduct>;
