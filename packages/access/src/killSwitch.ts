import {
  type AuditStore,
  auditRow,
  ConfigurationError,
  defineGuard,
  type Guard,
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
  /** `Retry-After` while the global switch is on; default 300 seconds. */
  readonly retryAfterSeconds?: number;
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

/** The kill switches of one deployment (I6) and the guard that enforces them. */
export interface Switches {
  /** Turns the global kill switch on (all MCP requests answer 503) or off. Audited. */
  setGlobal(on: boolean, by: SwitchActor): Promise<void>;
  /** Turns agent access for one tenant on or off. Audited. */
  setTenantAccess(tenantId: string, enabled: boolean, by: SwitchActor): Promise<void>;
  isGlobalOn(): Promise<boolean>;
  tenantAccess(tenantId: string): Promise<boolean>;
  /**
   * Install with `createServer({ guards: [switches.guard] })`: the global
   * switch at admission, the tenant switch in the visibility decision that
   * `tools/list` and `tools/call` share.
   */
  readonly guard: Guard;
}

const GLOBAL_KEY = 'mcp.kill';
const tenantKey = (tenantId: string) => `mcp.tenant.${tenantId}`;

/**
 * The global kill switch and per-tenant agent access (I6). While the global
 * switch is on, every MCP request answers 503 with `Retry-After` before any
 * credential or tool code runs; connections stay valid and work again when
 * it is off. A tenant switched off lists no tools and gets `tenant_disabled`
 * on every call (one decision serves both); other tenants continue. A switch
 * store that cannot be read fails closed.
 */
export function createSwitches(options: SwitchesOptions): Switches {
  const retryAfterSeconds = options.retryAfterSeconds ?? 300;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 1) {
    throw new ConfigurationError('createSwitches: retryAfterSeconds must be a positive integer.');
  }
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

  const guard = defineGuard({
    name: 'killSwitch',
    gate: async function killSwitchGate() {
      return (await isGlobalOn())
        ? { status: 503, reason: 'Agent access is paused by the operator.', retryAfterSeconds }
        : undefined;
    },
    connection: async function tenantSwitch(connection) {
      let enabled: boolean;
      try {
        enabled = await tenantAccess(connection.tenantId);
      } catch {
        return {
          code: 'store_unavailable',
          message: 'The switch store could not be read; nothing ran.',
          fix: 'Retry shortly.',
        };
      }
      if (enabled) return undefined;
      return {
        code: 'tenant_disabled',
        message: 'Agent access is switched off for this workspace.',
        fix: 'Ask a workspace admin to turn agent access back on.',
      };
    },
  });

  return Object.freeze({
    setGlobal: (on: boolean, by: SwitchActor) => record(GLOBAL_KEY, on, by, null),
    setTenantAccess: (tenantId: string, enabled: boolean, by: SwitchActor) =>
      record(tenantKey(tenantId), enabled, by, tenantId),
    isGlobalOn,
    tenantAccess,
    guard,
  });
}
