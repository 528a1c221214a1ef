import type { CredentialRecord } from '@gatehousejs/core';
import { sql } from 'kysely';
import type { BookingApp } from './app.js';
import { DEMO, UsageError } from './config.js';
import type { BookingDb } from './db/tables.js';
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

/** The advisory lock key a PostgreSQL start holds while it rotates the demo token, so rotations run one at a time. */
export const ROTATION_LOCK = 0xde7_070c;

/** The ids of the demo tokens live in the unit's snapshot, oldest first (hashes only are stored; this reads ids). */
async function liveDemoTokenIds(db: BookingDb): Promise<string[]> {
  const rows = await db
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
 *
 * Atomic and serialised: the revocations, the mint and their audit rows are
 * one unit of work, which holds the database's write lock (SQLite's `BEGIN
 * IMMEDIATE`) or the advisory lock {@link ROTATION_LOCK} (PostgreSQL) from
 * before it reads which demo tokens are live until it commits. A rotation
 * that fails, or waits for its turn longer than the lock wait (5 s), changes
 * nothing. Starts at once rotate one after the other, each revoking the
 * token of the one before, so the last start to rotate wins: afterwards
 * exactly one demo token is live, the one that start printed; the tokens
 * the others printed are revoked. (A unique index on live demo tokens would
 * refuse a second one but not revoke the first, and could not be built on a
 * database that already holds two.)
 */
export async function rotateDemoToken(app: BookingApp): Promise<DemoToken> {
  const person = await app.people.get(DEMO.workspaceId, DEMO.personId);
  const standing = await app.people.standing(DEMO.workspaceId, DEMO.personId);
  if (!person || !standing?.active) {
    throw new UsageError(
      `The demo owner ${DEMO.personId} of ${DEMO.workspaceId} is missing or inactive in this database.`,
    );
  }
  return app.database.write(async (db, handle) => {
    if (app.database.engine === 'postgres')
      await sql`SELECT pg_advisory_xact_lock(${ROTATION_LOCK})`.execute(db);
    const credentials = app.credentialsIn(handle);
    const revoked: string[] = [];
    for (const id of await liveDemoTokenIds(db)) {
      if (await credentials.revoke(id, START_ACTOR)) revoked.push(id);
    }
    const expiresAt = app.deps.clock().getTime() + DAY_MS;
    const minted = await credentials.mint({
      tenantIds: [DEMO.workspaceId],
      creatorId: person.id,
      rights: [...standing.rights],
      clientLabel: DEMO_TOKEN_LABEL,
      expiresAt,
      channel: 'cli',
    });
    return { ...minted, person, expiresAt: new Date(expiresAt), revoked };
  });
}
