import { type Credentials, createCredentials, createSwitches, type Switches } from '@gatehousejs/access';
import type { GatehouseServer, Logger } from '@gatehousejs/core';
// #if console
import { type TicketsConsole, ticketsConsole } from './console.js';
// #endif
import type { Database } from './db/database.js';
import { ticketsServer } from './mcp/server.js';
import { People, RIGHTS, type Right } from './people.js';
import type { Mailer } from './tickets/service.js';

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The server's public origin (`http://127.0.0.1:3000`), asked when a link is made. */
  readonly origin: () => string;
  readonly people?: People;
  /** Where log lines go: tool names, outcomes and public ids, never arguments (I17). */
  readonly logger?: Logger;
  /** The clock of tokens, confirmations and pages; tests move it. */
  readonly clock?: () => Date;
}

/** The product: its database, people, credentials, switches and MCP server. */
export interface App {
  readonly database: Database;
  readonly people: People;
  readonly credentials: Credentials<Right>;
  readonly switches: Switches;
  readonly server: GatehouseServer<Right>;
  // #if console
  readonly console: TicketsConsole;
  // #endif
  /**
   * Mints an MCP token for a person with every right they hold now, shown
   * once (only its hash is stored); earlier tokens of the same label and
   * person are revoked.
   */
  mintToken(
    personId: string,
    label: string,
  ): Promise<{ token: string; credentialId: string; expiresAt: Date }>;
}

/** Log lines as JSON on standard error. */
export const stderrLogger: Logger = {
  info: (record, message) => console.error(JSON.stringify({ level: 'info', msg: message, ...record })),
  warn: (record, message) => console.error(JSON.stringify({ level: 'warn', msg: message, ...record })),
  error: (record, message) => console.error(JSON.stringify({ level: 'error', msg: message, ...record })),
};

const DAY_MS = 86_400_000;
const OPERATOR = { actorId: 'operator', channel: 'cli' };

/** Builds the product on a database: every part shares its stores. */
export function createApp<THandle>(database: Database<THandle>, options: AppOptions): App {
  const people = options.people ?? new People();
  const logger = options.logger ?? stderrLogger;
  const clock = options.clock ?? (() => new Date());
  const { audit, credentials: credentialStore } = database.stores;
  const unitOfWork = database.unitOfWork;
  const credentials = createCredentials({
    store: credentialStore,
    audit,
    people,
    rights: RIGHTS,
    clock,
    unitOfWork,
  });
  const switches = createSwitches({ store: database.stores.switches, audit });
  const mailer: Mailer = {
    async send(mail) {
      await database.outbox.append(mail); // a real product hands the mail to its mail service here
      logger.info({ event: 'mail.sent', mail_id: mail.id, ticket_id: mail.ticketId }, 'mail sent');
    },
  };
  const server = ticketsServer({
    database,
    credentials,
    switches,
    mailer,
    logger,
    clock,
    // #if console
    approvalUrl: (id) => `${options.origin()}/approvals/${encodeURIComponent(id)}`,
    // #endif
  });
  // #if console
  const pages = ticketsConsole({
    ...options,
    database,
    people,
    approvals: server.approvals,
    credentials,
    switches,
    clock,
  });
  // #endif

  return {
    database,
    people,
    credentials,
    switches,
    server,
    // #if console
    console: pages,
    // #endif
    async mintToken(personId, label) {
      const person = people.get(personId);
      if (!person?.active) throw new Error(`No active person ${personId}.`);
      const earlier = await credentialStore.list({
        tenantId: person.workspaceId,
        creatorId: personId,
        limit: 1000,
      });
      for (const old of earlier) {
        if (old.clientLabel === label && old.revokedAt === null) await credentials.revoke(old.id, OPERATOR);
      }
      const expiresAt = clock().getTime() + DAY_MS;
      const { token, credential } = await credentials.mint({
        tenantIds: [person.workspaceId],
        creatorId: personId,
        rights: people.rightsOf(person),
        clientLabel: label,
        expiresAt,
        channel: 'cli',
      });
      return { token, credentialId: credential.id, expiresAt: new Date(expiresAt) };
    },
  };
}
