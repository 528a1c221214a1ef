import {
  type AuditStore,
  auditRow,
  ConfigurationError,
  type SwitchStore,
  type UnitOfWork,
} from '@gatehousejs/core';
import { ExpiringMap } from '@gatehousejs/core/internal';
import { audited } from './internal/audited.js';

/** Options of {@link createSwitches}: the default for tenants is defined here, once. */
export interface SwitchesOptions {
  readonly store: SwitchStore;
  readonly audit: AuditStore;
  /** Whether agent access is on for a tenant nobody has switched; default true. */
  readonly tenantDefault?: boolean;
  /** The clock for audit times; default the system time. Tests pin it. */
  readonly clock?: () => Date;
  /**
   * The host's unit of work (`stores.unitOfWork`): a switch change and its
   * audit row then commit together. Without it they commit one after the
   * other, and a crash between them leaves a change without its row.
   */
  readonly unitOfWork?: UnitOfWork;
  /**
   * How long, in ms, a switch read may be reused before the store is read
   * again; default 0: every read goes to the store. Above 0, each change
   * resolves only this long after it committed, so when `setGlobal` or
   * `setTenantAccess` resolves, no process that reads with the same or a
   * smaller `readCacheMs` still answers the value before. Set it on a shared
   * database (one round trip per switch per call saved), with the same value
   * in every process that reads or flips: the servers, the CLI, the admin
   * pages. At most 5,000.
   */
  readonly readCacheMs?: number;
}

/** Who flips a switch, for the audit row. */
export interface SwitchActor {
  readonly actorId: string;
  /** `cli`, `admin`, … */
  readonly channel: string;
}

/**
 * The kill switches of one deployment (I6): audited changes, and the
 * reader `killSwitchGuards({ switches })` of `@gatehousejs/guards` enforces.
 */
export interface Switches {
  /** Turns the global kill switch on (all MCP requests answer 503) or off. Audited. */
  setGlobal(on: boolean, by: SwitchActor): Promise<void>;
  /** Turns agent access for one tenant on or off. Audited. */
  setTenantAccess(tenantId: string, enabled: boolean, by: SwitchActor): Promise<void>;
  isGlobalOn(): Promise<boolean>;
  /** Whether agent access is on for `tenantId`: its switch, else the default defined here. */
  tenantAccess(tenantId: string): Promise<boolean>;
}

const GLOBAL_KEY = 'mcp.kill';
const MAX_READ_CACHE_MS = 5_000;
/** Most tenant switches a process keeps read; beyond it the oldest is read again. */
const MAX_CACHED_KEYS = 10_000;
const tenantKey = (tenantId: string) => `mcp.tenant.${tenantId}`;

/**
 * The global kill switch and per-tenant agent access (I6), read and flipped
 * (every change audited, with its before and after). Enforce them with
 * `killSwitchGuards({ switches })` of `@gatehousejs/guards` (or
 * `standardGuards(stores, { switches })`): while the global switch is on,
 * every MCP request answers 503 with `Retry-After` before any credential or
 * tool code runs; a tenant switched off lists no tools and gets
 * `tenant_disabled` on every call. The tenant default is defined here, once.
 */
export function createSwitches(options: SwitchesOptions): Switches {
  if (typeof options?.store?.get !== 'function' || typeof options.store.set !== 'function')
    throw new ConfigurationError('createSwitches: store must be a SwitchStore (get and set).');
  if (typeof options.audit?.append !== 'function')
    throw new ConfigurationError(
      'createSwitches: audit must be an AuditStore: every change is audited (I6).',
    );
  const readCacheMs = options.readCacheMs ?? 0;
  if (!Number.isInteger(readCacheMs) || readCacheMs < 0 || readCacheMs > MAX_READ_CACHE_MS)
    throw new ConfigurationError(
      `createSwitches: readCacheMs must be a whole number of ms from 0 to ${MAX_READ_CACHE_MS}.`,
    );
  const tenantDefault = options.tenantDefault ?? true;
  const clock = options.clock ?? (() => new Date());
  const { store, audit } = options;
  const read = readCacheMs === 0 ? (key: string) => store.get(key) : cachedReads(store, readCacheMs);

  const record = async (key: string, after: boolean, by: SwitchActor, tenantId: string | null) => {
    await audited(options.unitOfWork, async (unit) => {
      const before = await store.set(key, after, unit);
      await audit.append(
        auditRow(
          {
            channel: by.channel,
            action: 'switch.set',
            outcome: 'ok',
            tenantId,
            actorId: by.actorId,
            objectIds: [key],
            note: `before: ${before ?? 'default'}; after: ${after}`,
          },
          clock().getTime(),
        ),
        unit,
      );
    });
    // every read that began before the commit has expired in every process when this resolves
    if (readCacheMs > 0) await new Promise((resolve) => setTimeout(resolve, readCacheMs + 1));
  };
  const isGlobalOn = async () => (await read(GLOBAL_KEY)) === true;
  const tenantAccess = async (tenantId: string) => (await read(tenantKey(tenantId))) ?? tenantDefault;

  return Object.freeze({
    setGlobal: (on: boolean, by: SwitchActor) => record(GLOBAL_KEY, on, by, null),
    setTenantAccess: (tenantId: string, enabled: boolean, by: SwitchActor) =>
      record(tenantKey(tenantId), enabled, by, tenantId),
    isGlobalOn,
    tenantAccess,
  });
}

/**
 * Reads of `store` reused for `maxAgeMs` after each read began (on the
 * monotonic clock, so a read answered late expires as early as one answered
 * at once); reads of one key in flight together share the store's answer; a
 * failed read is never kept. At most {@link MAX_CACHED_KEYS} keys: past it the
 * oldest read is let go.
 */
function cachedReads(store: SwitchStore, maxAgeMs: number) {
  const reads = new ExpiringMap<string, Promise<boolean | undefined>>({ limit: MAX_CACHED_KEYS });
  return (key: string): Promise<boolean | undefined> => {
    const now = performance.now();
    const kept = reads.get(key, now);
    if (kept) return kept;
    // a store that throws at once or answers a plain value is read the same way
    const value = Promise.resolve().then(() => store.get(key));
    reads.set(key, value, now + maxAgeMs, now);
    value.catch(() => {
      if (reads.get(key, performance.now()) === value) reads.delete(key);
    });
    return value;
  };
}
