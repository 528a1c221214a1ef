import type { PendingAction, PendingClaim } from '@gatehousejs/core';

/** A model action of the pending-action contract: id `pa1`, token hash `h1`, pending, expiring at 1,000. */
export const action = (overrides: Partial<PendingAction> = {}): PendingAction => ({
  id: 'pa1',
  tokenHash: 'h1',
  connectionId: 'c1',
  tenantId: 't1',
  tool: 'notify_customer',
  arguments: { booking_id: 'b1', lines: [{ n: 1, text: 'Ada' }], urgent: false, cc: null },
  argumentsDigest: 'ad',
  contentHash: 'ch',
  summary: 'Mail Ada about booking b1',
  createdAt: 0,
  expiresAt: 1_000,
  status: 'pending',
  ...overrides,
});

/** An action a person approves out of band, with every approval field set. */
export const personAction = (overrides: Partial<PendingAction> = {}): PendingAction =>
  action({
    approval: 'person',
    creatorId: 'p1',
    result: { booking: { id: 'b1', notified: true }, note: null },
    decidedBy: 'p2',
    decidedAt: 500,
    status: 'executed',
    ...overrides,
  });

/** A person action still awaiting its decision: no decision fields yet. */
export const awaiting = (id: string, overrides: Partial<PendingAction> = {}): PendingAction =>
  action({ id, tokenHash: `h-${id}`, approval: 'person', creatorId: 'p1', ...overrides });

/** A claim with a fresh random fence, as core makes one, lapsing at `expiresAt`. */
export const leaseUntil = (expiresAt: number): PendingClaim => ({
  fence: crypto.randomUUID().replaceAll('-', ''),
  expiresAt,
});
