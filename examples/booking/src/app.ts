import { type Credentials, createCredentials, createSwitches, type Switches } from '@gatehousejs/access';
import {
  type Approver,
  type BucketLimit,
  type CredentialDirectory,
  type CredentialStore,
  type Effect,
  errorLog,
  type GatehouseServer,
  type OnError,
  type Telemetry,
  type UnitOfWork,
} from '@gatehousejs/core';
import {
  type AuthorizationServer,
  createAuthorizationServer,
  forgettingGrants,
  grantAuthenticator,
  type OAuthSettings,
} from '@gatehousejs/oauth';
import { type Logger, pino } from 'pino';
import { byEngine } from './db/database.js';
import { type BookingDatabase, type DatabaseConfig, openBookingDatabase } from './db/open.js';
import { seedIfEmpty } from './db/seed.js';
import { type Actor, type OutboundPorts, RIGHTS, type Right } from './domain/model.js';
import { type Housekeeping, startHousekeeping } from './housekeeping.js';
import { createMcpServer } from './mcp/server.js';
import { BOOKING_SCOPES, bookingOAuthSettings } from './oauth.js';
import { createOutboundPorts } from './ports/outbox.js';
import { versions } from './presenters.js';
import { ApiAccess } from './services/apiAccess.js';
import { type BaseDeps, freeDeps, unitDeps } from './services/deps.js';
import { createServices, type ServiceDeps, type Services } from './services/index.js';
import { PeopleDirectory } from './services/people.js';

/** How the booking product runs, whatever the database. */
export interface BookingAppSettings {
  /** The clock of services, guards and presenters; tests move it. */
  readonly clock?: () => Date;
  /** Where logs go; default pino to stderr. Never arguments (I17). */
  readonly logger?: Logger;
  /** Seed the demo data into an empty database; default true. */
  readonly seed?: boolean;
  /** Overrides of the MCP rate buckets per effect class. */
  readonly rateLimits?: Partial<Record<Effect, BucketLimit>>;
  /** How long a write's replay claim holds before another replica may take it over; default 60 s. */
  readonly replayLeaseMs?: number;
  /** How often housekeeping purges expired rows (guard stores, REST sessions); default 60 s. */
  readonly housekeepingIntervalMs?: number;
  /**
   * How long a kill switch read is reused (`createSwitches`' `readCacheMs`);
   * default 250 ms. Every process on one database (servers, CLI) must use the
   * same value: a flip resolves only once this long has passed after its commit.
   */
  readonly switchReadCacheMs?: number;
  /**
   * The product's public origin (`https://booking.example`), where approval
   * pages live; default the address `serveHttp` listens on.
   */
  readonly publicUrl?: string;
  /** Tracing and metrics of MCP requests (`startTelemetry`, from `OTEL_EXPORTER_OTLP_ENDPOINT`); default none. */
  readonly telemetry?: Telemetry;
  /** The OAuth authorization server's keys and switches; default from `BOOKING_OAUTH_*` variables. */
  readonly oauth?: OAuthSettings;
}

/** The product's public origin: configured, or set by `serveHttp` once it listens. */
export interface PublicUrl {
  /** The origin, without a trailing slash. */
  get(): string;
  /** Whether the origin was configured (known before listening). */
  readonly configured: boolean;
  /** Sets the origin unless one was configured. */
  listeningAt(url: URL): void;
  /** The absolute URL of a page path such as `/approvals/pa_…`. */
  of(path: string): string;
}

function publicUrlOf(configured: string | undefined): PublicUrl {
  let origin = configured ? new URL(configured).origin : 'http://127.0.0.1';
  return {
    get: () => origin,
    configured: configured !== undefined && configured !== '',
    listeningAt(url) {
      if (!configured) origin = url.origin;
    },
    of: (path) => new URL(path, `${origin}/`).href,
  };
}

/** How to build the booking product: a SQLite `file` or a PostgreSQL `databaseUrl`, and its settings. */
export type BookingAppOptions = DatabaseConfig & BookingAppSettings;

/** The booking product: its database, services, credentials, switches and MCP server. */
export interface BookingApp {
  readonly database: BookingDatabase;
  /** The deps of services outside any unit of work (reads; each write opens its own). */
  readonly deps: ServiceDeps;
  readonly ports: OutboundPorts;
  readonly people: PeopleDirectory;
  readonly apiAccess: ApiAccess;
  readonly credentials: Credentials<Right>;
  /**
   * The same credential service with its writes joining the open unit of
   * work `handle` (from `database.write` or {@link writeAs}): a mint or a
   * revocation and its audit row commit or roll back with that unit instead
   * of in a transaction of their own. Same checks and audit rows; revoking
   * an OAuth grant also forgets it (on PostgreSQL at once, on a connection
   * of its own).
   */
  credentialsIn(handle: unknown): Credentials<Right>;
  /** The MCP credentials (hashes only), listed on the console's Tokens page, and for the CLI. */
  readonly credentialStore: CredentialStore & CredentialDirectory;
  readonly switches: Switches;
  readonly mcp: GatehouseServer<Right>;
  /** The OAuth authorization server whose access tokens the MCP endpoint also accepts. */
  readonly oauth: AuthorizationServer<Right>;
  readonly logger: Logger;
  readonly housekeeping: Housekeeping;
  /** Where the product's pages are reached; approval links point here. */
  readonly publicUrl: PublicUrl;
  /** Whether this start seeded an empty database. */
  readonly seeded: boolean;
  /** The services for an actor of the UI, the REST API or the CLI. */
  servicesFor(actor: Actor): Services;
  /**
   * A signed-in person as an approver of MCP actions (I9): their tenant and
   * live rights, or `undefined` when they are unknown or inactive there.
   */
  approverFor(workspaceId: string, personId: string): Promise<Approver<Right> | undefined>;
  /** Runs `work` in one unit of work with the actor's services bound to it; `handle` is for the audit row. */
  writeAs<T>(actor: Actor, work: (services: Services, handle: unknown) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** The default logger: JSON lines on stderr, so stdout stays free for stdio MCP and the banner. */
export function stderrLogger(): Logger {
  return pino({ level: process.env.LOG_LEVEL ?? 'info' }, pino.destination({ dest: 2, sync: true }));
}

const SESSION_BATCH = 100;
const SESSION_BATCHES_PER_ROUND = 10;

/** One housekeeping round: expired guard-store rows and OAuth records, then expired REST sessions in small batches. */
function housekeepingRound(database: BookingDatabase, apiAccess: ApiAccess, clock: () => Date) {
  return async () => {
    await database.stores.purgeExpired(clock().getTime());
    for (let i = 0; i < SESSION_BATCHES_PER_ROUND; i++) {
      const purged = await apiAccess.purgeExpiredSessions(clock().getTime(), SESSION_BATCH);
      if (purged < SESSION_BATCH) break;
    }
  };
}

/**
 * Opens the database (migrating and, when empty, seeding it) and wires the
 * product: services, outbound ports, MCP credentials checked against live
 * roles (I4), kill switches (I6), the MCP server over the same services (I1)
 * and a housekeeping timer. The same code runs on SQLite and PostgreSQL.
 */
export async function createBookingApp(options: BookingAppOptions): Promise<BookingApp> {
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? stderrLogger();
  const config: DatabaseConfig =
    'databaseUrl' in options ? { databaseUrl: options.databaseUrl } : { file: options.file };
  const database = await openBookingDatabase(config, clock().getTime());
  try {
    const seeded = options.seed === false ? false : await seedIfEmpty(database, clock());
    return wire(database, options, { clock, logger, seeded });
  } catch (error) {
    await database.close();
    throw error;
  }
}

function wire(
  database: BookingDatabase,
  options: BookingAppSettings,
  { clock, logger, seeded }: { clock: () => Date; logger: Logger; seeded: boolean },
): BookingApp {
  const base: BaseDeps = { clock, versions };
  const deps = byEngine(database, (db) => freeDeps(db, base));
  const ports = createOutboundPorts(clock);
  const people = new PeopleDirectory(database, clock);
  const apiAccess = new ApiAccess(database, people, clock);
  const { credentialsOver, ...access } = accessControl(
    database,
    people,
    clock,
    options.switchReadCacheMs ?? SWITCH_READ_CACHE_MS,
  );
  const publicUrl = publicUrlOf(options.publicUrl);
  const oauth = createAuthorizationServer({
    store: database.stores.authorization,
    credentials: access.credentials,
    credentialStore: access.credentialStore,
    scopes: BOOKING_SCOPES,
    origin: publicUrl.get,
    resourceName: 'Booking',
    clock,
    logger,
    settings: options.oauth ?? bookingOAuthSettings(process.env),
  });
  // revoking a credential that is an OAuth grant also deletes the grant and its tokens
  const credentials = forgettingGrants(oauth, access.credentials);
  const authenticate = grantAuthenticator(oauth, {
    current: (tenantId, personId) => people.standing(tenantId, personId),
  });
  const mcp = createMcpServer({
    database,
    base,
    ports,
    ...access,
    credentials: { ...credentials, authenticate },
    logger,
    ...(options.rateLimits ? { rateLimits: options.rateLimits } : {}),
    ...(options.replayLeaseMs ? { replayLeaseMs: options.replayLeaseMs } : {}),
    onError: operatorErrorLog(logger, clock),
    pageUrl: publicUrl.of,
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
  });
  const housekeeping = startHousekeeping({
    intervalMs: options.housekeepingIntervalMs ?? 60_000,
    round: housekeepingRound(database, apiAccess, clock),
    logger,
  });
  return {
    database,
    deps,
    ports,
    people,
    apiAccess,
    ...access,
    credentials,
    credentialsIn: (handle) => forgettingGrants(oauth, credentialsOver(joining(handle)), handle),
    mcp,
    oauth,
    logger,
    housekeeping,
    publicUrl,
    seeded,
    servicesFor: (actor) => createServices(deps, actor, ports),
    approverFor: async (workspaceId, personId) => {
      const standing = await people.standing(workspaceId, personId);
      if (!standing?.active) return undefined;
      return { personId, tenantId: workspaceId, rights: new Set(standing.rights) };
    },
    writeAs: (actor, work) =>
      database.stores.unitOfWork.run((handle) =>
        work(createServices(unitDeps(database, base, handle), actor, ports), handle),
      ),
    close: async () => {
      await housekeeping.stop();
      await database.close();
    },
  };
}

/** How long a kill switch read is reused, and how long a flip waits after its commit (the same in every process). */
const SWITCH_READ_CACHE_MS = 250;

/** A unit of work that runs inside the open unit `handle`: its writes join that transaction. */
function joining(handle: unknown): UnitOfWork {
  return Object.freeze({ atomic: true, run: <T>(work: (unit: unknown) => Promise<T>) => work(handle) });
}

/**
 * MCP credentials checked against the people's live roles (I4, I5), the
 * same service over another unit of work (`credentialsOver`), and the kill
 * switches (I6).
 */
function accessControl(
  database: BookingDatabase,
  people: PeopleDirectory,
  clock: () => Date,
  switchReadCacheMs: number,
) {
  const { stores } = database;
  const credentialStore = stores.credentials;
  const credentialsOver = (unitOfWork: UnitOfWork) =>
    createCredentials({
      store: credentialStore,
      audit: stores.audit,
      people: { current: (tenantId, personId) => people.standing(tenantId, personId) },
      rights: RIGHTS,
      clock,
      unitOfWork,
    });
  // a token's creation or revocation commits with its audit row
  const credentials = credentialsOver(stores.unitOfWork);
  const switches = createSwitches({
    store: stores.switches,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    tenantDefault: true,
    clock,
    readCacheMs: switchReadCacheMs,
  });
  return { credentialStore, credentials, credentialsOver, switches };
}

/**
 * The server's `onError` as log lines an operator can live with, on the
 * product's clock (`errorLog` of core): a tool call's failure once, by its
 * correlation id and error type; a store outage behind admission (every
 * request answers 503) at warn and a transport's fault at error, each at
 * most once a minute per error type, then one line with the suppressed
 * count; never the error's message. A call's error detail (message, stack)
 * goes to debug level only. Clients' protocol mistakes never get here: core
 * logs them (with the other refusals) at info, just as rate-limited.
 */
function operatorErrorLog(logger: Logger, clock: () => Date): OnError {
  const lines = errorLog(logger, { now: () => clock().getTime() });
  return (error, facts) => {
    lines(error, facts);
    if (facts.correlationId)
      logger.debug({ correlation_id: facts.correlationId, err: error }, 'internal error detail');
  };
}
