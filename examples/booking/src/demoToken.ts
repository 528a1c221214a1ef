import type { CredentialRecord } from '@gatehousejs/core';
import type { BookingApp } from './app.js';
import { DEMO, UsageError } from './config.js';
import type { Person } from './domain/model.js';

const DAY_MS = 86_400_000;

/** The client label of the token `npm start` mints; earlier ones carrying it are revoked on the next start. */
export const DEMO_TOKEN_LABEL = 'Demo token (npm start)';

/** The actor of the demo token's revocations in the audit log (channel `cli`). */
const START_ACTOR = Object.freeze({
  actorId: `cli:${process.env.USER ?? 'operator'} (npm start)`,
  channel: 'cli',
});

/** The token of this start, shown once, and the ids of the earlier demo tokens it replaced. */
export interface DemoToken {
  readonly token: string;
  readonly credential: CredentialRecord;
  readonly person: Person;
  readonly expiresAt: Date;
  /** Earlier demo tokens revoked by this start, oldest first. */
  readonly revoked: readonly string[];
}

/** The ids of the demo tokens still live in the database (hashes only are stored; this reads ids). */
async function liveDemoTokenIds(app: BookingApp): Promise<string[]> {
  const rows = await app.database.reader
    .selectFrom('gatehouse_credentials')
    .select('id')
    .where('client_label', '=', DEMO_TOKEN_LABEL)
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Replaces the demo token of `npm start`: revokes every earlier one through
 * the credential service (one `token.revoke` audit row each, channel `cli`),
 * then mints a new 24-hour token for the seeded owner with every right she
 * holds. The clear token is returned once; only its hash is stored. Refuses
 * (UsageError) when the demo owner is missing or inactive, before revoking.
 */
export async function rotateDemoToken(app: BookingApp): Promise<DemoToken> {
  const person = await app.people.get(DEMO.workspaceId, DEMO.personId);
  const standing = await app.people.standing(DEMO.workspaceId, DEMO.personId);
  if (!person || !standing?.active) {
    throw new UsageError(
      `The demo owner ${DEMO.personId} of ${DEMO.workspaceId} is missing or inactive in this database.`,
    );
  }
  const revoked: string[] = [];
  for (const id of await liveDemoTokenIds(app)) {
    if (await app.credentials.revoke(id, START_ACTOR)) revoked.push(id);
  }
  const expiresAt = app.deps.clock().getTime() + DAY_MS;
  const minted = await app.credentials.mint({
    tenantIds: [DEMO.workspaceId],
    creatorId: person.id,
    rights: [...standing.rights],
    clientLabel: DEMO_TOKEN_LABEL,
    expiresAt,
    channel: 'cli',
  });
  return { ...minted, person, expiresAt: new Date(expiresAt), revoked };
}
