import type { BucketLimit, Effect, GatehouseServer, Logger } from '@gatehousejs/core';
import {
  type Credentials,
  rateGuard,
  replayGuard,
  type Switches,
  toolsetVisibility,
} from '@gatehousejs/guards';
import { transactionGuard } from '@gatehousejs/stores';
import type { BookingDatabase } from '../db/open.js';
import type { OutboundPorts, Right } from '../domain/model.js';
import type { ServiceDeps } from '../services/index.js';
import { bookingGatehouse, lookupsOf } from './gatehouse.js';
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
  readonly database: BookingDatabase;
  readonly deps: ServiceDeps;
  readonly ports: OutboundPorts;
  readonly credentials: Credentials<Right>;
  readonly switches: Switches;
  readonly logger: Logger;
  readonly rateLimits?: Partial<Record<Effect, BucketLimit>>;
  readonly onInternalError?: (error: unknown, correlationId: string) => void;
}

/**
 * The booking product's MCP server: a second adapter on the same services
 * as the REST API (I1). Guards, in order: the kill switches (503 at the
 * gate, `tenant_disabled` per workspace, I6), rate buckets per effect class
 * (I7), then for writes the SQLite transaction outside the replay guard, so
 * a booking, its audit row and its replay record commit together (I10, I15).
 * Tools are hidden by rights and by the `compact` toolset (I7).
 */
export function createMcpServer(parts: McpServerParts): GatehouseServer<Right> {
  const { database, deps } = parts;
  const gh = bookingGatehouse(deps, parts.ports);
  const clock = () => deps.clock().getTime();
  return gh.createServer({
    name: 'gatehouse-booking',
    version: '0.1.0',
    tools: bookingTools(gh, lookupsOf(deps)),
    authenticate: parts.credentials.authenticate,
    audit: database.stores.audit,
    confirm: { store: database.stores.pendingActions, ttlMs: 10 * 60_000 },
    guards: [
      parts.switches.guard,
      rateGuard({
        store: database.stores.rateBuckets,
        limits: { ...DEFAULT_RATE_LIMITS, ...parts.rateLimits },
        clock,
      }),
      transactionGuard(database.db, { lock: database.lock, audit: database.stores.audit, clock }),
      replayGuard({ store: database.stores.replay, clock }),
    ],
    visibility: [toolsetVisibility({ compact: COMPACT_TOOLSET })],
    logger: parts.logger,
    clock: deps.clock,
    ...(parts.onInternalError ? { onInternalError: parts.onInternalError } : {}),
  });
}
