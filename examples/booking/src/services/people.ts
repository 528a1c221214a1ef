import { randomBytes } from 'node:crypto';
import { auditRow } from '@gatehousejs/core';
import type { SqliteDatabase, SqliteStores } from '@gatehousejs/stores';
import { hashPassword } from '../db/ids.js';
import { type Person, type Right, type Role, rightsOf } from '../domain/model.js';

interface PersonRow {
  readonly id: string;
  readonly workspace_id: string;
  readonly name: string;
  readonly email: string;
  readonly role: Role;
  readonly active: 0 | 1;
  readonly operator: 0 | 1;
}

/** Who changes staff, for the audit row. */
export interface StaffActor {
  readonly actorId: string;
  readonly channel: 'cli' | 'admin';
}

const toPerson = (row: PersonRow): Person => ({
  id: row.id,
  workspaceId: row.workspace_id,
  name: row.name,
  email: row.email,
  role: row.role,
  active: row.active === 1,
  operator: row.operator === 1,
});

/**
 * Staff of every workspace: the live source of rights (I4) and the audited
 * changes to roles, the active flag and passwords.
 */
export class PeopleDirectory {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly audit: SqliteStores['audit'],
    private readonly clock: () => Date,
  ) {}

  /** A person of a workspace, or undefined when they are not a member. */
  get(workspaceId: string, personId: string): Person | undefined {
    const row = this.db
      .prepare<[string, string], PersonRow>('SELECT * FROM people WHERE workspace_id = ? AND id = ?')
      .get(workspaceId, personId);
    return row && toPerson(row);
  }

  /** A person by id, in whatever workspace. */
  byId(personId: string): Person | undefined {
    const row = this.db.prepare<[string], PersonRow>('SELECT * FROM people WHERE id = ?').get(personId);
    return row && toPerson(row);
  }

  /** Whether a workspace exists. */
  hasWorkspace(workspaceId: string): boolean {
    return this.db.prepare('SELECT 1 FROM workspaces WHERE id = ?').get(workspaceId) !== undefined;
  }

  /** Whether the database holds any workspace (it is seeded). */
  hasAnyWorkspace(): boolean {
    return this.db.prepare('SELECT 1 FROM workspaces LIMIT 1').get() !== undefined;
  }

  /** A person's rights right now: their role's, none when deactivated (I4). */
  standing(workspaceId: string, personId: string): { active: boolean; rights: readonly Right[] } | undefined {
    const person = this.get(workspaceId, personId);
    return person && { active: person.active, rights: rightsOf(person.role, person.active) };
  }

  /** Gives a person another role; audited (`person.role`). */
  setRole(person: Person, role: Role, by: StaffActor): void {
    this.db
      .transaction(() => {
        this.db.prepare('UPDATE people SET role = ? WHERE id = ?').run(role, person.id);
        this.#audit(person, 'person.role', `before: ${person.role}; after: ${role}`, by);
      })
      .immediate();
  }

  /** Deactivates a person: their MCP tokens stop working on the next request (I4); audited. */
  deactivate(person: Person, by: StaffActor): void {
    this.db
      .transaction(() => {
        this.db.prepare('UPDATE people SET active = 0 WHERE id = ?').run(person.id);
        this.#audit(person, 'person.deactivate', null, by);
      })
      .immediate();
  }

  /** Sets a new random password for the product's UI and returns it (show it once); audited. */
  resetPassword(person: Person, by: StaffActor): string {
    const password = randomBytes(12).toString('base64url');
    this.db
      .transaction(() => {
        this.db
          .prepare('UPDATE people SET password_hash = ? WHERE id = ?')
          .run(hashPassword(password), person.id);
        this.#audit(person, 'person.password', null, by);
      })
      .immediate();
    return password;
  }

  #audit(person: Person, action: string, note: string | null, by: StaffActor): void {
    this.audit.appendSync(
      auditRow(
        {
          channel: by.channel,
          action,
          outcome: 'ok',
          tenantId: person.workspaceId,
          actorId: by.actorId,
          objectIds: [person.id],
          note,
        },
        this.clock().getTime(),
      ),
    );
  }
}
