import {
  type AdmissionDecision,
  type AdmissionGuard,
  ALLOW,
  ConfigurationError,
  type Decision,
  defineGuard,
  deny,
  type VisibilityGuard,
} from '@gatehousejs/core';

/**
 * Where the switches are read (I6): `createSwitches` of
 * `@gatehousejs/access` is one, with the tenant default defined once there.
 */
export interface SwitchReader {
  /** Whether the global kill switch is on: every MCP request answers 503. */
  isGlobalOn(): Promise<boolean>;
  /** Whether agent access is on for `tenantId` (the default applied when nobody switched it). */
  tenantAccess(tenantId: string): Promise<boolean>;
}

/** Options of {@link killSwitchGuards}, {@link globalKillSwitchGuard} and {@link tenantSwitchGuard}. */
export interface KillSwitchGuardOptions {
  readonly switches: SwitchReader;
  /** `Retry-After` while the global switch is on; default 300 seconds. */
  readonly retryAfterSeconds?: number;
}

function checked(options: KillSwitchGuardOptions, who: string): number {
  const { switches } = options ?? {};
  if (typeof switches?.isGlobalOn !== 'function' || typeof switches.tenantAccess !== 'function')
    throw new ConfigurationError(
      `${who}: switches must read the switches (isGlobalOn, tenantAccess), e.g. createSwitches(…).`,
    );
  const retryAfterSeconds = options.retryAfterSeconds ?? 300;
  if (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 1)
    throw new ConfigurationError(`${who}: retryAfterSeconds must be a positive integer.`);
  return retryAfterSeconds;
}

/**
 * The global kill switch (I6), at admission: while it is on, every MCP
 * request answers HTTP 503 with `Retry-After` (a JSON-RPC error on stdio)
 * before any credential or tool code runs; connections stay valid and work
 * again when it is off. A switch store that cannot be read is an outage:
 * 503 as well, naming no cause.
 */
export function globalKillSwitchGuard(options: KillSwitchGuardOptions): AdmissionGuard {
  const retryAfterSeconds = checked(options, 'globalKillSwitchGuard');
  const { switches } = options;
  return defineGuard({
    kind: 'admission',
    name: 'killSwitch',
    duty: 'killSwitch',
    admit: async function killSwitch(): Promise<AdmissionDecision> {
      if (!(await switches.isGlobalOn())) return ALLOW;
      return { ok: false, status: 503, reason: 'Agent access is paused by the operator.', retryAfterSeconds };
    },
  });
}

/**
 * Agent access per tenant (I6), in the visibility decision: a tenant
 * switched off lists no tools and gets `tenant_disabled` on every call (one
 * decision serves both); other tenants continue. A switch that cannot be
 * read is `store_unavailable` (fails closed, the call may be retried).
 */
export function tenantSwitchGuard(options: KillSwitchGuardOptions): VisibilityGuard {
  checked(options, 'tenantSwitchGuard');
  const { switches } = options;
  return defineGuard({
    kind: 'visibility',
    name: 'tenantSwitch',
    duty: 'tenantSwitch',
    connection: async function tenantSwitch(connection): Promise<Decision> {
      let enabled: boolean;
      try {
        enabled = await switches.tenantAccess(connection.tenantId);
      } catch {
        return deny({
          code: 'store_unavailable',
          message: 'The switch store could not be read; nothing ran.',
          fix: 'Retry shortly.',
        });
      }
      if (enabled) return ALLOW;
      return deny({
        code: 'tenant_disabled',
        message: 'Agent access is switched off for this workspace.',
        fix: 'Ask a workspace admin to turn agent access back on.',
      });
    },
  });
}

/**
 * Both kill switches (I6) from one reader: the global one at admission
 * (503), the per-tenant one in the visibility decision (`tenant_disabled`).
 *
 * @example
 * createServer({ guards: [...killSwitchGuards({ switches: createSwitches({ store, audit }) }), …] });
 */
export function killSwitchGuards(
  options: KillSwitchGuardOptions,
): readonly [AdmissionGuard, VisibilityGuard] {
  return [globalKillSwitchGuard(options), tenantSwitchGuard(options)];
}
