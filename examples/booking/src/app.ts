import { type Credentials, createCredentials, createSwitches, type Switches } from '@gatehousejs/access';
import type { BucketLimit, CredentialStore, Effect, GatehouseServer } from '@gatehousejs/core';
import { type Logger, pino } from 'pino';
import { type BookingDatabase, openBookingDatabase } from './db/open.js';
import { seedIfEmpty } from './db/seed.js';
import { cachingPrepare } from './db/statementCache.js';
import { type Actor, type OutboundPorts, RIGHTS, type Right } from './domain/model.js';
import { createMcpServer } from './mcp/server.js';
import { createOutboundPorts } from './ports/outbox.js';
import { versions } from './presenters.js';
import { ApiAccess } from './services/apiAccess.js';
import { createServices, type ServiceDeps, type Services } from './services/index.js';
import { PeopleDirectory } from './services/people.js';

/** How to build the booking product. */
export interface BookingAppOptions {
  /** The SQLite file (created when missing). */
  readonly file: string;
  /** The clock of services, guards and presenters; tests move it. */
  readonly clock?: () => Date;
  /** Where logs go; default pino to stderr. Never arguments (I17). */
  readonly logger?: Logger;
  /** Seed the demo data into an empty database; default true. */
  readonly seed?: boolean;
  /** Overrides of the MCP rate buckets per effect class. */
  readonly rateLimits?: Partial<Record<Effect, BucketLimit>>;
}

/** The booking product: its database, services, credentials, switches and MCP server. */
export interface BookingApp {
  readonly database: BookingDatabase;
  readonly deps: ServiceDeps;
  readonly ports: OutboundPorts;
  readonly people: PeopleDirectory;
  readonly apiAccess: ApiAccess;
  readonly credentials: Credentials<Right>;
  /** The MCP credentials (hashes only), for the admin page and the CLI. */
  readonly credentialStore: CredentialStore;
  readonly switches: Switches;
  readonly mcp: GatehouseServer<Right>;
  readonly logger: Logger;
  /** Whether this start seeded an empty database. */
  readonly seeded: boolean;
  /** The services for an actor of the UI, the REST API or the CLI. */
  servicesFor(actor: Actor): Services;
  close(): void;
}

/** The default logger: JSON lines on stderr, so stdout stays free for stdio MCP and the banner. */
export function stderrLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
}

/**
 * Opens the database (migrating and, when empty, seeding it) and wires the
 * product: services, outbound ports, MCP credentials checked against live
 * roles (I4), kill switches (I6) and the MCP server over the same services (I1).
 */
export function createBookingApp(options: BookingAppOptions): BookingApp {
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? stderrLogger();
  const database = openBookingDatabase(options.file, clock().getTime());
  const seeded = options.seed === false ? false : seedIfEmpty(database.db, clock());
  const { db, stores } = database;
  const deps: ServiceDeps = { db: cachingPrepare(db), clock, versions };
  const ports = createOutboundPorts(db, clock);
  const people = new PeopleDirectory(db, stores.audit, clock);
  const access = accessControl(database, people, clock);
  const mcp = createMcpServer({
    database,
    deps,
    ports,
    ...access,
    logger,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    onInternalError: internalErrorLogger(logger),
  });
  return {
    database,
    deps,
    ports,
    people,
    apiAccess: new ApiAccess(db, people, clock),
    ...access,
    mcp,
    logger,
    seeded,
    servicesFor: (actor) => createServices(deps, actor, ports),
    close: () => database.close(),
  };
}

/** MCP credentials checked against the people's live roles (I4, I5), and the kill switches (I6). */
function accessControl(database: BookingDatabase, people: PeopleDirectory, clock: () => Date) {
  const { stores } = database;
  const credentialStore = stores.credentials;
  const credentials = createCredentials({
    store: credentialStore,
    audit: stores.audit,
    people: { current: async (tenantId, personId) => people.standing(tenantId, personId) },
    rights: RIGHTS,
    clock,
  });
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    tenantDefault: true,
    retryAfterSeconds: 60,
    clock,
  });
  return { credentialStore, credentials, switches };
}

/** Logs an unexpected error by correlation id and type; its detail (message, stack) only at debug level. */
function internalErrorLogger(logger: Logger) {
  return (error: unknown, correlationId: string) => {
    const type = error instanceof Error ? error.name : typeof error;
    logger.error({ correlation_id: correlationId, error_type: type }, 'internal error');
    logger.debug({ correlation_id: correlationId, err: error }, 'internal error detail');
  };
}
