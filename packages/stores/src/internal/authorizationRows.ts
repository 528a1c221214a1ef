import type { AuthorizationIndex, AuthorizationRecord } from '@gatehousejs/core';

/** A row of `gatehouse_oauth_records`, as SQLite and PostgreSQL return it. */
export interface AuthorizationRow {
  readonly id: string;
  readonly payload: string;
  readonly grant_id: string | null;
  readonly uid: string | null;
  readonly user_code: string | null;
  readonly expires_at: number | string | null;
  readonly consumed_at: number | string | null;
}

/** The columns each index reads. */
export const INDEX_COLUMN: Readonly<Record<AuthorizationIndex, string>> = {
  id: 'id',
  uid: 'uid',
  userCode: 'user_code',
};

/** A record's columns, in the order the upserts bind them after model and id. */
export const recordColumns = (record: AuthorizationRecord) =>
  [
    record.payload,
    record.grantId ?? null,
    record.uid ?? null,
    record.userCode ?? null,
    record.expiresAt ?? null,
    record.consumedAt ?? null,
  ] as const;

/** A row as the store's record (PostgreSQL's BIGINT arrives as a string). */
export function recordOf(row: AuthorizationRow): AuthorizationRecord & { readonly id: string } {
  const time = (value: number | string | null) => (value === null ? undefined : Number(value));
  return {
    id: row.id,
    payload: row.payload,
    ...(row.grant_id === null ? {} : { grantId: row.grant_id }),
    ...(row.uid === null ? {} : { uid: row.uid }),
    ...(row.user_code === null ? {} : { userCode: row.user_code }),
    ...(row.expires_at === null ? {} : { expiresAt: time(row.expires_at) }),
    ...(row.consumed_at === null ? {} : { consumedAt: time(row.consumed_at) }),
  };
}
