import {
  ALLOW,
  ConfigurationError,
  type Connection,
  type Decision,
  defineGuard,
  deny,
  type VisibilityGuard,
} from '@gatehousejs/core';
import { refuseTenantLike } from '@gatehousejs/core/internal';

/** Options of {@link tenantGuard}. */
export interface TenantGuardOptions {
  /** More property names to refuse as tenant selectors, beyond `createGatehouse({ tenantLikeNames })` and the defaults. */
  readonly names?: readonly string[];
}

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/**
 * One connection, one tenant (I3). When the server is built it refuses any
 * tool whose advertised input, guard-owned arguments included, has a
 * tenant-like property (`workspace_id`, `tenant`, …): the tenant comes from
 * the credential, never from arguments. On every `tools/list` and
 * `tools/call` it refuses a connection without a tenant, and one whose
 * request names another tenant than the credential's (`tenant_mismatch`),
 * so services only ever receive the connection's one tenant.
 *
 * @example
 * createServer({ guards: [tenantGuard(), …] });
 */
export function tenantGuard(options: TenantGuardOptions = {}): VisibilityGuard {
  const names = options.names ?? [];
  if (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || squash(n) === ''))
    throw new ConfigurationError('tenantGuard: names must be non-empty property names.');
  const extra = names.map(squash);
  return defineGuard({
    kind: 'visibility',
    name: 'tenant',
    duty: 'tenant',
    connection: function tenantBinding(connection: Connection): Decision {
      if (typeof connection.tenantId !== 'string' || connection.tenantId === '') {
        return deny({
          code: 'tenant_mismatch',
          message: 'This connection is bound to no tenant; nothing ran.',
          fix: 'Connect with a credential issued for one workspace.',
        });
      }
      const named = connection.transportTenant;
      if (named === undefined || named === connection.tenantId) return ALLOW;
      return deny({
        code: 'tenant_mismatch',
        message: 'This request names another workspace than its credential is bound to; nothing ran.',
        fix: 'Use the credential issued for that workspace, or the address of this credential’s own workspace.',
      });
    },
    verify(tool, _tools, build) {
      refuseTenantLike(tool.name, tool.inputSchema, new Set([...build.tenantLikeNames, ...extra]));
    },
  });
}
