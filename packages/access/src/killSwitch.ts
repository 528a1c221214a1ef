import {
  type AuditStore,
  auditRow,
  ConfigurationError,
  type SwitchStore,
  type UnitOfWork,
} from '@gatehousejs/core';
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
  const tenantDefault = options.tenantDefault ?? true;
  const clock = options.clock ?? (() => new Date());
  const { store, audit } = options;

  const record = (key: string, after: boolean, by: SwitchActor, tenantId: string | null) =>
    audited(options.unitOfWork, async (unit) => {
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
  const isGlobalOn = async () => (await store.get(GLOBAL_KEY)) === true;
  const tenantAccess = async (tenantId: string) => (await store.get(tenantKey(tenantId))) ?? tenantDefault;

  return Object.freeze({
    setGlobal: (on: boolean, by: SwitchActor) => record(GLOBAL_KEY, on, by, null),
    setTenantAccess: (tenantId: string, enabled: boolean, by: SwitchActor) =>
      record(tenantKey(tenantId), enabled, by, tenantId),
    isGlobalOn,
    tenantAccess,
  });
}
