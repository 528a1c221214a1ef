import { type Credentials, type Switches, toolsetVisibility } from '@gatehousejs/access';
import type { BucketLimit, Effect, GatehouseServer, Logger, OnError, Telemetry } from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { type BookingDatabase, type BookingDatabaseBase, byEngine } from '../db/database.js';
import type { OutboundPorts, Right } from '../domain/model.js';
import type { BaseDeps } from '../services/deps.js';
import { bookingGatehouse } from './gatehouse.js';
import { bookingTools, COMPACT_TOOLSET } from './tools/index.js';

/** Rate buckets per connection and effect class (I7): outward classes drain slowly. */
export const DEFAULT_RATE_LIMITS: Readonly<Record<Effect, BucketLimit>> = Object.freeze({
  read: { capacity: 120, refillPerSecond: 2 },
  write: { capacity: 30, refillPerSecond: 0.5 },
  notify: { capacity: 10, refillPerSecond: 1 / 60 },
  wake: { capacity: 3, refillPerSecond: 1 / 600 },
  alert: { capacity: 3, refillPerSecond: 1 / 600 },
  delete: { capacity: 10, refillPerSecond: 1 / 60 },
});

/** What the MCP server is built from. */
export interface McpServerParts {
  /** The product's database on either engine; the server takes its engine's unit-of-work handle. */
  readonly database: BookingDatabase;
  readonly base: BaseDeps;
  readonly ports: OutboundPorts;
  readonly credentials: Credentials<Right>;
  readonly switches: Switches;
  readonly logger: Logger;
  readonly rateLimits?: Partial<Record<Effect, BucketLimit>>;
  readonly replayLeaseMs?: number;
  /** The server's one error hook: every tool call's and every transport's unexpected error. */
  readonly onError?: OnError;
  /** The absolute URL of the product's page for a path, e.g. `/approvals/pa_…`. */
  readonly pageUrl: (path: string) => string;
  /** A span per `tools/call` and `tools/list` and the MCP metrics (`@gatehousejs/core/otel`). */
  readonly telemetry?: Telemetry;
}

/**
 * The booking product's MCP server: a second adapter on the same services
 * as the REST API (I1), with the standard guards: the tenant binding (I3),
 * live rights (I4), the kill switches at admission (503) and in the
 * visibility decision (`tenant_disabled`, I6), rate buckets per effect
 * class (I7), replay protection (I10), the two-step confirm with person
 * approval (I9) and output cleaning (I16); and the database's unit of work
 * (SQLite or PostgreSQL), so a booking, its audit row and its replay record
 * commit together (I15). Tools are hidden by rights and by the `compact`
 * toolset (I7).
 */
export function createMcpServer(parts: McpServerParts): GatehouseServer<Right> {
  return byEngine(parts.database, (database) => mcpServerOn(database, parts));
}

/** The server on one engine's database: the unit of work hands the handle the services take. */
function mcpServerOn<THandle>(
  database: BookingDatabaseBase<THandle>,
  parts: McpServerParts,
): GatehouseServer<Right> {
  const gh = bookingGatehouse(database, parts.base, parts.ports);
  const { stores } = database;
  // one lease for both claims a call holds: its replay claim and a confirmation's claim on its action
  const lease = parts.replayLeaseMs ? { leaseMs: parts.replayLeaseMs } : {};
  return gh.createServer({
    name: 'gatehouse-booking',
    version: '0.1.0',
    tools: bookingTools(gh),
    authenticate: parts.credentials.authenticate,
    audit: stores.audit,
    unitOfWork: stores.unitOfWork,
    guards: [
      ...standardGuards(stores, {
        switches: parts.switches,
        retryAfterSeconds: 60,
        rate: { stores: database.rateStores, limits: { ...DEFAULT_RATE_LIMITS, ...parts.rateLimits } },
        replay: lease,
        confirm: {
          ttlMs: 10 * 60_000,
          ...lease,
          // delete_booking and page_technician say `approval: 'person'`: a person approves them on
          // /approvals/<id>, and that approval runs them with the requesting token's live rights (I9)
          approval: {
            url: (id) => parts.pageUrl(`/approvals/${encodeURIComponent(id)}`),
            connectionOf: parts.credentials.connectionById,
          },
        },
      }),
      toolsetVisibility({ compact: COMPACT_TOOLSET }),
    ],
    logger: parts.logger,
    clock: parts.base.clock,
    ...(parts.onError ? { onError: parts.onError } : {}),
    ...(parts.telemetry ? { telemetry: parts.telemetry } : {}),
  });
}
