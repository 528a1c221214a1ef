import { ToolError } from '@gatehousejs/core';
import { ClientRegistrationError, type ClientRegistry, createClientRegistry } from '@gatehousejs/oauth';
import type { BookingApp } from '../app.js';
import { UsageError } from '../config.js';
import { seedIfEmpty } from '../db/seed.js';
import { DomainError } from '../domain/errors.js';
import { type Person, RIGHTS, type Right, ROLES, type Role } from '../domain/model.js';
import { COMPACT_TOOLSET } from '../mcp/tools/index.js';
import type { StaffActor } from '../services/people.js';
import { onOff, type ParsedArgs, positional, required } from './args.js';

/** Where a command writes: stdout for results, stderr for errors. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

/** One CLI command: its usage line, the options it takes, and what it does. */
export interface Command {
  readonly usage: string;
  readonly options: readonly string[];
  run(app: BookingApp, args: ParsedArgs, io: CliIo): Promise<void> | void;
}

const DAY_MS = 86_400_000;
const TOOLSETS: Readonly<Record<string, readonly string[]>> = { compact: COMPACT_TOOLSET };

/** The CLI's actor in audit rows (channel `cli`). */
export const cliActor = (): StaffActor => ({
  actorId: `cli:${process.env.USER ?? 'operator'}`,
  channel: 'cli',
});

async function noWorkspace(app: BookingApp, workspaceId: string): Promise<UsageError> {
  const empty = !(await app.people.hasAnyWorkspace());
  return new UsageError(
    empty
      ? `The database ${app.database.file} has no workspaces yet; run: npm run booking -- seed`
      : `There is no workspace ${workspaceId}.`,
  );
}

async function personIn(app: BookingApp, workspaceId: string, personId: string): Promise<Person> {
  if (!(await app.people.hasWorkspace(workspaceId))) throw await noWorkspace(app, workspaceId);
  const person = await app.people.get(workspaceId, personId);
  if (!person) throw new UsageError(`There is no person ${personId} in ${workspaceId}.`);
  return person;
}

function rightsFrom(list: string): Right[] {
  const rights = list
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  const unknown = rights.filter((r) => !(RIGHTS as readonly string[]).includes(r));
  if (rights.length === 0 || unknown.length > 0) {
    throw new UsageError(
      `Unknown rights: ${unknown.join(', ') || '(none given)'}. Known: ${RIGHTS.join(', ')}.`,
    );
  }
  return rights as Right[];
}

function expiryFrom(app: BookingApp, days: string | undefined): number | null {
  if (days === undefined) return null;
  const n = Number(days);
  if (!Number.isInteger(n) || n < 1 || n > 365)
    throw new UsageError('--expires-days must be a whole number from 1 to 365.');
  return app.deps.clock().getTime() + n * DAY_MS;
}

const tokenCreate: Command = {
  usage:
    'token create --workspace W --person P --rights r1,r2 [--label L] [--toolset compact] [--expires-days N]',
  options: ['workspace', 'person', 'rights', 'label', 'toolset', 'expires-days'],
  async run(app, args, io) {
    positional(args, []);
    const person = await personIn(app, required(args, 'workspace'), required(args, 'person'));
    const rights = rightsFrom(required(args, 'rights'));
    const toolset = args.flags.get('toolset');
    if (toolset !== undefined && !TOOLSETS[toolset])
      throw new UsageError(`Unknown toolset ${toolset}. Known: compact.`);
    const expiresAt = expiryFrom(app, args.flags.get('expires-days'));
    const { token, credential } = await app.credentials.mint({
      tenantIds: [person.workspaceId],
      creatorId: person.id,
      rights,
      clientLabel: args.flags.get('label') ?? 'CLI token',
      expiresAt,
      toolset: toolset ?? null,
      channel: 'cli',
    });
    io.out(`MCP token for ${person.name} (${person.id}, ${person.role}) in ${person.workspaceId}
id       ${credential.id}
rights   ${credential.rights.join(' ')}
toolset  ${toolset ?? 'all tools'}
expires  ${expiresAt === null ? 'never' : new Date(expiresAt).toISOString()}
token    ${token}
Shown once: only its hash is stored. Revoke it with: npm run booking -- token revoke ${credential.id}
`);
  },
};

const tokenRevoke: Command = {
  usage: 'token revoke <id>',
  options: [],
  async run(app, args, io) {
    const [id = ''] = positional(args, ['id']);
    const record = await app.credentialStore.findById(id);
    if (!record) throw new UsageError(`There is no MCP token with id ${id}.`);
    const revoked = await app.credentials.revoke(id, cliActor());
    io.out(
      revoked ? `Revoked ${id}: it is refused from the next request on.\n` : `${id} was already revoked.\n`,
    );
  },
};

const personRole: Command = {
  usage: 'person role <workspace> <person> <owner|dispatcher|viewer>',
  options: [],
  async run(app, args, io) {
    const [workspaceId = '', personId = '', role = ''] = positional(args, ['workspace', 'person', 'role']);
    if (!(ROLES as readonly string[]).includes(role))
      throw new UsageError(`Unknown role ${role}. Known: ${ROLES.join(', ')}.`);
    const person = await personIn(app, workspaceId, personId);
    await app.people.setRole(person, role as Role, cliActor());
    io.out(
      `${person.id} is now ${role} in ${workspaceId} (was ${person.role}). Their MCP tokens keep only the rights of the new role, from the next request on.\n`,
    );
  },
};

const personDeactivate: Command = {
  usage: 'person deactivate <workspace> <person>',
  options: [],
  async run(app, args, io) {
    const [workspaceId = '', personId = ''] = positional(args, ['workspace', 'person']);
    const person = await personIn(app, workspaceId, personId);
    await app.people.deactivate(person, cliActor());
    io.out(
      `${person.id} is deactivated in ${workspaceId}. Their MCP tokens, API tokens and sessions stop working on the next request.\n`,
    );
  },
};

const personPassword: Command = {
  usage: 'person password <workspace> <person>',
  options: [],
  async run(app, args, io) {
    const [workspaceId = '', personId = ''] = positional(args, ['workspace', 'person']);
    const person = await personIn(app, workspaceId, personId);
    const password = await app.people.resetPassword(person, cliActor());
    io.out(
      `New password for ${person.email} (shown once): ${password}\nSign in with POST /api/session {"email", "password"}.\n`,
    );
  },
};

const switchGlobal: Command = {
  usage: 'switch global on|off        (on: every MCP request answers 503)',
  options: [],
  async run(app, args, io) {
    const [word] = positional(args, ['on|off']);
    const on = onOff(word);
    await app.switches.setGlobal(on, cliActor());
    io.out(
      on
        ? 'Global kill switch ON: every MCP request answers 503; tokens stay valid.\n'
        : 'Global kill switch OFF: MCP requests are served again.\n',
    );
  },
};

const switchWorkspace: Command = {
  usage: 'switch workspace <workspace> on|off   (off: agent access off for that workspace)',
  options: [],
  async run(app, args, io) {
    const [workspaceId = '', word] = positional(args, ['workspace', 'on|off']);
    const enabled = onOff(word);
    if (!(await app.people.hasWorkspace(workspaceId))) throw await noWorkspace(app, workspaceId);
    await app.switches.setTenantAccess(workspaceId, enabled, cliActor());
    io.out(
      `Agent access for ${workspaceId} is ${enabled ? 'ON' : 'OFF: every tool call answers tenant_disabled'}.\n`,
    );
  },
};

const seed: Command = {
  usage: 'seed',
  options: [],
  async run(app, args, io) {
    positional(args, []);
    const seeded = await seedIfEmpty(app.database, app.deps.clock());
    io.out(
      seeded
        ? `Seeded ${app.database.file} with the demo workspaces.\n`
        : 'The database already has data; nothing changed.\n',
    );
  },
};

/** The registry of pre-registered OAuth clients, audited in the product's database. */
export const clientsOf = (app: BookingApp): ClientRegistry =>
  createClientRegistry({
    server: app.oauth,
    audit: app.database.stores.audit,
    unitOfWork: app.database.stores.unitOfWork,
  });

const clientAdd: Command = {
  usage: 'oauth-client add --id ID --name NAME --redirect-uris U1[,U2]   (a pre-registered public client)',
  options: ['id', 'name', 'redirect-uris'],
  async run(app, args, io) {
    positional(args, []);
    const client = {
      id: required(args, 'id'),
      name: required(args, 'name'),
      redirectUris: required(args, 'redirect-uris')
        .split(',')
        .map((u) => u.trim())
        .filter(Boolean),
    };
    let replaced: boolean;
    try {
      replaced = await clientsOf(app).save(client, cliActor());
    } catch (error) {
      if (error instanceof ClientRegistrationError) throw new UsageError(error.message);
      throw error;
    }
    io.out(
      `${replaced ? 'Replaced' : 'Registered'} the OAuth client ${client.id} (${client.name.trim()}), public with PKCE, redirect URIs: ${client.redirectUris.join(' ')}\n`,
    );
  },
};

const clientList: Command = {
  usage: 'oauth-client list',
  options: [],
  async run(app, args, io) {
    positional(args, []);
    const clients = await clientsOf(app).list();
    if (clients.length === 0)
      io.out('No registered OAuth clients (metadata-document clients are not listed).\n');
    for (const c of clients) io.out(`${c.id}\t${c.name}\t${c.redirectUris.join(' ')}\n`);
  },
};

const clientRemove: Command = {
  usage: 'oauth-client remove <id>',
  options: [],
  async run(app, args, io) {
    const [id = ''] = positional(args, ['id']);
    const removed = await clientsOf(app).remove(id, cliActor());
    if (!removed) throw new UsageError(`There is no registered OAuth client ${id}.`);
    const grants = removed.revokedGrants === 1 ? '1 grant' : `${removed.revokedGrants} grants`;
    io.out(
      `Removed ${id} and revoked its ${grants}: its tokens are refused from the next request on, and it can start no authorization.\n`,
    );
  },
};

/** Every command, by its first two words (or one, for `seed`). */
export const COMMANDS: Readonly<Record<string, Command>> = {
  seed,
  'token create': tokenCreate,
  'token revoke': tokenRevoke,
  'person role': personRole,
  'person deactivate': personDeactivate,
  'person password': personPassword,
  'switch global': switchGlobal,
  'switch workspace': switchWorkspace,
  'oauth-client add': clientAdd,
  'oauth-client list': clientList,
  'oauth-client remove': clientRemove,
};

/** A domain error of a service, or a library's `ToolError` (a right the person does not hold), as a usage error. */
export function asUsageError(error: unknown): unknown {
  return error instanceof DomainError || ToolError.is(error)
    ? new UsageError(`${error.message} ${error.fix}`)
    : error;
}
