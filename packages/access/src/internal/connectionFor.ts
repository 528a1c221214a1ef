import type { AuthDecision, CredentialRecord } from '@gatehousejs/core';

/** The tenant a request acts in, or why none can be chosen. */
export type TenantChoice =
  | { readonly ok: true; readonly tenantId: string }
  | { readonly ok: false; readonly reason: string };

/** A connection whose rights are the token's rights ∩ the creator's current rights (I4). */
export function connectionFor<TRight extends string>(
  record: Pick<CredentialRecord, 'id' | 'creatorId' | 'rights' | 'clientLabel' | 'toolset'>,
  tenantId: string,
  currentRights: Iterable<string>,
): AuthDecision<TRight> {
  const current = new Set(currentRights);
  const rights = new Set(record.rights.filter((r) => current.has(r)) as TRight[]);
  return {
    ok: true,
    connection: {
      connectionId: record.id,
      tenantId,
      creatorId: record.creatorId,
      clientName: record.clientLabel,
      channel: 'mcp',
      rights,
      ...(record.toolset ? { toolset: record.toolset } : {}),
    },
  };
}
