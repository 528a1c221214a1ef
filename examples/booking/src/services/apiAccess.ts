import { sha256Hex } from '@gatehousejs/core';
import type { SqliteDatabase } from '@gatehousejs/stores';
import { newId, newSecret, passwordMatches } from '../db/ids.js';
import type { Person } from '../domain/model.js';
import type { PeopleDirectory } from './people.js';

/** Prefix of the product's own API tokens; the MCP endpoint refuses them (I5). */
export const API_TOKEN_PREFIX = 'bkapi_';
/** Name of the UI's session cookie; the MCP endpoint ignores it and answers 401 (I5). */
export const SESSION_COOKIE = 'booking_session';

const SESSION_PREFIX = 'bks_';
const SESSION_MS = 12 * 3_600_000;

/**
 * The product's own credentials: API tokens for scripts and integrations,
 * and session cookies for the UI. Stored hashed; an inactive person's
 * credentials stop working at once.
 */
export class ApiAccess {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly people: PeopleDirectory,
    private readonly clock: () => Date,
  ) {}

  /** Creates an API token for a person; the token is returned once, only its hash is kept. */
  createToken(person: Person, label: string): { readonly id: string; readonly token: string } {
    const token = newSecret(API_TOKEN_PREFIX);
    const id = newId('apitok');
    this.db
      .prepare('INSERT INTO api_tokens (id, token_hash, person_id, label, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(id, sha256Hex(token), person.id, label.slice(0, 100), this.clock().getTime());
    return { id, token };
  }

  /** The active person behind an API token, if any. */
  byToken(token: string): Person | undefined {
    if (!token.startsWith(API_TOKEN_PREFIX)) return undefined;
    const row = this.db
      .prepare<[string], { person_id: string }>(
        'SELECT person_id FROM api_tokens WHERE token_hash = ? AND revoked_at IS NULL',
      )
      .get(sha256Hex(token));
    return this.#active(row?.person_id);
  }

  /** Checks e-mail and password; returns a new session token and its expiry, or undefined. */
  login(email: string, password: string): { readonly token: string; readonly expiresAt: number } | undefined {
    const row = this.db
      .prepare<[string], { id: string; password_hash: string | null }>(
        'SELECT id, password_hash FROM people WHERE email = ?',
      )
      .get(email.trim().toLowerCase());
    if (!row || !passwordMatches(password, row.password_hash) || !this.#active(row.id)) return undefined;
    return this.openSession(row.id);
  }

  /** Opens a session for a person (after a login). */
  openSession(personId: string): { readonly token: string; readonly expiresAt: number } {
    const token = newSecret(SESSION_PREFIX);
    const now = this.clock().getTime();
    this.db
      .prepare('INSERT INTO sessions (token_hash, person_id, created_at, expires_at) VALUES (?, ?, ?, ?)')
      .run(sha256Hex(token), personId, now, now + SESSION_MS);
    return { token, expiresAt: now + SESSION_MS };
  }

  /** The active person behind a live session cookie, if any. */
  bySession(token: string): Person | undefined {
    const row = this.db
      .prepare<[string, number], { person_id: string }>(
        'SELECT person_id FROM sessions WHERE token_hash = ? AND expires_at > ?',
      )
      .get(sha256Hex(token), this.clock().getTime());
    return this.#active(row?.person_id);
  }

  /** Ends a session. */
  logout(token: string): void {
    this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(sha256Hex(token));
  }

  #active(personId: string | undefined): Person | undefined {
    const person = personId === undefined ? undefined : this.people.byId(personId);
    return person?.active ? person : undefined;
  }
}
