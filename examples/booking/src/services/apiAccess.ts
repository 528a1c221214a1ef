import { sha256Hex } from '@gatehousejs/core';
import type { BookingDatabase } from '../db/database.js';
import { newId, newSecret, passwordMatches } from '../db/ids.js';
import type { Person } from '../domain/model.js';
import type { PeopleDirectory } from './people.js';

/** Prefix of the product's own API tokens; the MCP endpoint refuses them (I5). */
export const API_TOKEN_PREFIX = 'bkapi_';
/** Name of the UI's session cookie; the MCP endpoint ignores it and answers 401 (I5). */
export const SESSION_COOKIE = 'booking_session';

const SESSION_PREFIX = 'bks_';
const SESSION_MS = 12 * 3_600_000;
const LINK_PREFIX = 'bkl_';
/** How long a one-time sign-in link stays valid. */
export const SIGN_IN_LINK_MS = 15 * 60_000;

/**
 * A sign-in link is kept in the sessions table under a hash of its own
 * domain, so a link token never works as a session cookie, nor a session
 * token as a link.
 */
const linkHash = (token: string) => sha256Hex(`signin-link:${token}`);

/**
 * The product's own credentials: API tokens for scripts and integrations,
 * and session cookies for the UI. Stored hashed; an inactive person's
 * credentials stop working at once. Each write is a unit of work of its own.
 */
export class ApiAccess {
  constructor(
    private readonly database: BookingDatabase,
    private readonly people: PeopleDirectory,
    private readonly clock: () => Date,
  ) {}

  /** Creates an API token for a person; the token is returned once, only its hash is kept. */
  async createToken(person: Person, label: string): Promise<{ readonly id: string; readonly token: string }> {
    const token = newSecret(API_TOKEN_PREFIX);
    const id = newId('apitok');
    const row = {
      id,
      token_hash: sha256Hex(token),
      person_id: person.id,
      label: label.slice(0, 100),
      created_at: this.clock().getTime(),
    };
    await this.database.write((db) => db.insertInto('api_tokens').values(row).execute());
    return { id, token };
  }

  /** The active person behind an API token, if any. */
  async byToken(token: string): Promise<Person | undefined> {
    if (!token.startsWith(API_TOKEN_PREFIX)) return undefined;
    const row = await this.database.reader
      .selectFrom('api_tokens')
      .select('person_id')
      .where('token_hash', '=', sha256Hex(token))
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return this.#active(row?.person_id);
  }

  /** Checks e-mail and password; returns a new session token and its expiry, or undefined. */
  async login(
    email: string,
    password: string,
  ): Promise<{ readonly token: string; readonly expiresAt: number } | undefined> {
    const row = await this.database.reader
      .selectFrom('people')
      .select(['id', 'password_hash'])
      .where('email', '=', email.trim().toLowerCase())
      .executeTakeFirst();
    if (!row || !passwordMatches(password, row.password_hash) || !(await this.#active(row.id))) {
      return undefined;
    }
    return this.openSession(row.id);
  }

  /** Opens a session for a person (after a login). */
  async openSession(personId: string): Promise<{ readonly token: string; readonly expiresAt: number }> {
    const token = newSecret(SESSION_PREFIX);
    const now = this.clock().getTime();
    const row = {
      token_hash: sha256Hex(token),
      person_id: personId,
      created_at: now,
      expires_at: now + SESSION_MS,
    };
    await this.database.write((db) => db.insertInto('sessions').values(row).execute());
    return { token, expiresAt: now + SESSION_MS };
  }

  /** The active person behind a live session cookie, if any. */
  async bySession(token: string): Promise<Person | undefined> {
    return (await this.session(token))?.person;
  }

  /**
   * The live session behind a cookie: its active person and when they signed
   * in (the session opened then: every sign-in opens a new one), for pages
   * that ask for a recent sign-in (`prompt=login`, `max_age`).
   */
  async session(
    token: string,
  ): Promise<{ readonly person: Person; readonly signedInAt: number } | undefined> {
    const row = await this.database.reader
      .selectFrom('sessions')
      .select(['person_id', 'created_at'])
      .where('token_hash', '=', sha256Hex(token))
      .where('expires_at', '>', this.clock().getTime())
      .executeTakeFirst();
    const person = await this.#active(row?.person_id);
    return row && person ? { person, signedInAt: Number(row.created_at) } : undefined;
  }

  /**
   * Creates a one-time sign-in link token for an active person: 256 random
   * bits, stored hashed, valid for {@link SIGN_IN_LINK_MS}. Returned once.
   */
  async createSignInLink(personId: string): Promise<string> {
    if (!(await this.#active(personId))) {
      throw new Error(`No active person ${personId}: a sign-in link needs an active person.`);
    }
    const token = newSecret(LINK_PREFIX);
    const now = this.clock().getTime();
    const row = {
      token_hash: linkHash(token),
      person_id: personId,
      created_at: now,
      expires_at: now + SIGN_IN_LINK_MS,
    };
    await this.database.write((db) => db.insertInto('sessions').values(row).execute());
    return token;
  }

  /**
   * Redeems a sign-in link: deletes it (single use, also under concurrency:
   * only the request whose delete removed the row wins) and opens a session
   * for its person when the link was live and the person is active.
   */
  async redeemSignInLink(
    token: string,
  ): Promise<{ readonly token: string; readonly expiresAt: number } | undefined> {
    if (!token.startsWith(LINK_PREFIX)) return undefined;
    const hash = linkHash(token);
    const now = this.clock().getTime();
    const row = await this.database.reader
      .selectFrom('sessions')
      .select('person_id')
      .where('token_hash', '=', hash)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    const deleted = await this.database.write((db) =>
      db
        .deleteFrom('sessions')
        .where('token_hash', '=', hash)
        .where('expires_at', '>', now)
        .executeTakeFirst(),
    );
    if (Number(deleted.numDeletedRows) !== 1 || !(await this.#active(row.person_id))) return undefined;
    return this.openSession(row.person_id);
  }

  /** Ends a session. */
  async logout(token: string): Promise<void> {
    await this.database.write((db) =>
      db.deleteFrom('sessions').where('token_hash', '=', sha256Hex(token)).execute(),
    );
  }

  /**
   * Deletes up to `batch` sessions expired before `now` (housekeeping, off
   * the request path); returns how many. Small batches keep each unit short.
   */
  async purgeExpiredSessions(now: number, batch = 100): Promise<number> {
    return this.database.write(async (db) => {
      const expired = db
        .selectFrom('sessions')
        .select('token_hash')
        .where('expires_at', '<=', now)
        .limit(batch);
      const result = await db.deleteFrom('sessions').where('token_hash', 'in', expired).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  async #active(personId: string | undefined): Promise<Person | undefined> {
    const person = personId === undefined ? undefined : await this.people.byId(personId);
    return person?.active ? person : undefined;
  }
}
