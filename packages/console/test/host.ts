/**
 * A small help-desk product that mounts the console with its own sign-in:
 * people in two workspaces, an `email_customer` tool a person approves,
 * credentials, switches and the audit log on memory stores. The console is
 * the only page code it has.
 */
import { randomBytes } from 'node:crypto';
import { createCredentials, createSwitches } from '@gatehousejs/access';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
} from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { FormBrowser } from '@gatehousejs/testing';
import { z } from 'zod';
import { type ConsoleOptions, type ConsolePerson, createConsole } from '../src/index.js';

export const RIGHTS = ['tickets.read', 'customers.email'] as const;
export type Right = (typeof RIGHTS)[number];

export const ORIGIN = 'https://desk.example';

interface Person {
  readonly id: string;
  readonly name: string;
  readonly operator?: boolean;
  /** Workspace → owner or agent. */
  readonly roles: Readonly<Record<string, 'owner' | 'agent'>>;
}

/** Ada owns Acme and runs the deployment; Ben is an agent at Acme; Cy owns Bolt and is an agent at Acme. */
export const PEOPLE: Readonly<Record<string, Person>> = {
  ada: { id: 'p_ada', name: 'Ada Owner', operator: true, roles: { ws_acme: 'owner' } },
  ben: { id: 'p_ben', name: 'Ben Agent', roles: { ws_acme: 'agent' } },
  cy: { id: 'p_cy', name: 'Cy <b>Two</b>\u202Eevil', roles: { ws_bolt: 'owner', ws_acme: 'agent' } },
};

const WORKSPACES: Readonly<Record<string, string>> = { ws_acme: 'Acme', ws_bolt: 'Bolt' };
const rightsOf = (role: 'owner' | 'agent'): Right[] =>
  role === 'owner' ? [...RIGHTS] : ['tickets.read', 'customers.email'];

/** The console's view of a person: their workspaces, home first. */
function personView(person: Person): Omit<ConsolePerson<Right>, 'session'> {
  return {
    id: person.id,
    name: person.name,
    operator: person.operator,
    workspaces: Object.entries(person.roles).map(([id, role]) => ({
      id,
      name: WORKSPACES[id] ?? id,
      owner: role === 'owner',
      rights: rightsOf(role),
    })),
  };
}

const byId = (id: string) => Object.values(PEOPLE).find((p) => p.id === id);

/** The desk: its MCP server, its console, its stores and what it sent. */
export function desk(overrides: Partial<ConsoleOptions<Right>> = {}) {
  const audit = new MemoryAuditStore();
  const credentialStore = new MemoryCredentialStore();
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  const sent: { to: string; text: string }[] = [];
  const credentials = createCredentials<Right>({
    store: credentialStore,
    audit,
    rights: RIGHTS,
    people: {
      async current(tenantId, personId) {
        const role = byId(personId)?.roles[tenantId];
        return role ? { active: true, rights: new Set(rightsOf(role)) } : undefined;
      },
    },
  });
  const gh = createGatehouse({
    rights: RIGHTS,
    ports: {
      mailer: { effect: 'notify', port: { send: (to: string, text: string) => sent.push({ to, text }) } },
    },
    services: (_connection, ports) => ({ mailer: ports.mailer }),
  });
  const email = gh.defineTool({
    name: 'email_customer',
    title: 'Email a customer',
    description: 'Emails a customer about their ticket.',
    effect: 'notify',
    requires: ['customers.email'],
    approval: 'person',
    input: z.object({ to: z.string(), text: z.string() }),
    presenter: {
      outputSchema: { type: 'object', properties: { sent_to: { type: 'string' } }, required: ['sent_to'] },
      present: (to: string) => ({ sent_to: to }),
    },
    prepare: ({ input }) => ({ summary: `Email ${input.to}`, content: { to: input.to, text: input.text } }),
    run: ({ input, services }) => {
      services.mailer.send(input.to, input.text);
      return input.to;
    },
  });
  const pendingActions = new MemoryPendingActionStore();
  const server = gh.createServer({
    name: 'desk',
    version: '1.0.0',
    tools: [email],
    authenticate: credentials.authenticate,
    audit,
    unitOfWork: separateCommits(),
    guards: standardGuards(
      { replay: new MemoryReplayStore(), pendingActions, rateBuckets: new MemoryRateBucketStore() },
      {
        switches,
        confirm: {
          approval: {
            url: (id) => `${ORIGIN}/approvals/${id}`,
            connectionOf: (id, tenantId) => credentials.connectionById(id, tenantId),
          },
        },
      },
    ),
  });

  // the desk's own sign-in: a session cookie it set itself; the console only asks who it is
  const sessions = new Map<string, string>();
  async function signedInPerson(request: Request) {
    const token = /(?:^|; )desk_session=([^;]+)/.exec(request.headers.get('cookie') ?? '')?.[1];
    const person = token ? byId(sessions.get(token) ?? '') : undefined;
    return person && token ? { ...personView(person), session: token } : undefined;
  }
  const extras: Partial<ConsoleOptions<Right>> = {
    branding: { productName: 'Desk' },
    personNames: async (id) => byId(id)?.name,
    timeZoneOf: (workspaceId) => (workspaceId === 'ws_acme' ? 'Europe/Berlin' : 'America/New_York'),
    ...overrides,
  };

  // #region mount
  const console = createConsole<Right>({
    origin: 'https://desk.example',
    signIn: {
      personOf: signedInPerson, // the product's session: who, their workspaces now, the session id
      signInUrl: (returnTo) => `/login?next=${encodeURIComponent(returnTo)}`,
      cookies: ['desk_session'], // refused when sent twice
    },
    approvals: server.approvals, // the Gatehouse server's person approvals
    credentials, // createCredentials and createSwitches of @gatehousejs/access
    credentialStore,
    switches,
    audit,
    ...extras, // branding, names, time zones; a test's overrides
  });
  // #endregion mount

  /** Signs `person` in to the desk: the session token its own cookie `desk_session` carries. */
  function signInAs(person: Person): string {
    const token = `sess_${person.id}_${randomBytes(16).toString('hex')}`;
    sessions.set(token, person.id);
    return token;
  }

  /** A browser signed in to the desk as `person`. */
  function browser(person?: Person): FormBrowser {
    const b = new FormBrowser(ORIGIN, console.fetch);
    if (person) b.jar.set('desk_session', signInAs(person));
    return b;
  }

  /** A model's MCP connection of `person` in `workspace`, through a minted token. */
  async function connectionOf(person: Person, workspace = Object.keys(person.roles)[0] ?? '') {
    const { credential } = await credentials.mint({
      tenantIds: [workspace],
      creatorId: person.id,
      rights: rightsOf(person.roles[workspace] ?? 'agent'),
      clientLabel: `${person.name.split(' ')[0]}'s assistant`,
    });
    const connection = await credentials.connectionById(credential.id, workspace);
    if (!connection) throw new Error('the minted credential has no connection');
    return connection;
  }

  /** The model asks to email a customer; the pending action's id. */
  async function ask(person: Person, to = 'grace@customer.example', text = 'Your ticket is solved.') {
    const result = await server.callTool(await connectionOf(person), 'email_customer', { to, text });
    const id = (result.structuredContent as { pending_action_id?: string }).pending_action_id;
    if (!id) throw new Error(`no pending action: ${JSON.stringify(result.structuredContent)}`);
    return id;
  }

  return {
    console,
    server,
    audit,
    credentialStore,
    credentials,
    switches,
    pendingActions,
    sent,
    browser,
    signInAs,
    ask,
  };
}
