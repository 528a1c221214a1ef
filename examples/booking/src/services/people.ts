import { randomBytes } from 'node:crypto';
import { auditRow } from '@gatehousejs/core';
import type { BookingDatabase } from '../db/database.js';
import { hashPassword } from '../db/ids.js';
import type { BookingDb, Flag } from '../db/tables.js';
import { type Person, type Right, type Role, rightsOf } from '../domain/model.js';

interface PersonRow {
  readonly id: string;
  readonly workspace_id: string;
  readonly name: string;
  readonly email: string;
  readonly role: string;
  readonly active: Flag;
  readonly operator: Flag;
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
  role: row.role as Role,
  active: Number(row.active) === 1,
  operator: Number(row.operator) === 1,
});

const COLUMNS = ['id', 'workspace_id', 'name', 'email', 'role', 'active', 'operator'] as const;

/**
 * Staff of every workspace: the live source of rights (I4) and the audited
 * changes to roles, the active flag and passwords. Each change and its audit
 * row are one unit of work.
 */
export class PeopleDirectory {
  constructor(
    private readonly database: BookingDatabase,
    private readonly clock: () => Date,
  ) {}

  /** A person of a workspace, or undefined when they are not a member. */
  async get(workspaceId: string, personId: string): Promise<Person | undefined> {
    const row = await this.database.reader
      .selectFrom('people')
      .select(COLUMNS)
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', personId)
      .executeTakeFirst();
    return row && toPerson(row);
  }

  /** A person by id, in whatever workspace. */
  async byId(personId: string): Promise<Person | undefined> {
    const row = await this.database.reader
      .selectFrom('people')
      .select(COLUMNS)
      .where('id', '=', personId)
      .executeTakeFirst();
    return row && toPerson(row);
  }

  /** Whether a workspace exists. */
  async hasWorkspace(workspaceId: string): Promise<boolean> {
    const row = await this.database.reader
      .selectFrom('workspaces')
      .select('id')
      .where('id', '=', workspaceId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Whether the database holds any workspace (it is seeded). */
  async hasAnyWorkspace(): Promise<boolean> {
    const row = await this.database.reader.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  /** A person's rights right now: their role's, none when deactivated (I4). */
  async standing(
    workspaceId: string,
    personId: string,
  ): Promise<{ active: boolean; rights: readonly Right[] } | undefined> {
    const person = await this.get(workspaceId, personId);
    return person && { active: person.active, rights: rightsOf(person.role, person.active) };
  }

  /** Gives a person another role; audited (`person.role`). */
  setRole(person: Person, role: Role, by: StaffActor): Promise<void> {
    return this.#change(person, 'person.role', `before: ${person.role}; after: ${role}`, by, (db) =>
      db.updateTable('people').set({ role }).where('id', '=', person.id).execute(),
    );
  }

  /** Deactivates a person: their MCP tokens stop working on the next request (I4); audited. */
  deactivate(person: Person, by: StaffActor): Promise<void> {
    return this.#change(person, 'person.deactivate', null, by, (db) =>
      db.updateTable('people').set({ active: 0 }).where('id', '=', person.id).execute(),
    );
  }

  /** Sets a new random password for the product's UI and returns it (show it once); audited. */
  async resetPassword(person: Person, by: StaffActor): Promise<string> {
    const password = randomBytes(12).toString('base64url');
    const hash = hashPassword(password);
    await this.#change(person, 'person.password', null, by, (db) =>
      db.updateTable('people').set({ password_hash: hash }).where('id', '=', person.id).execute(),
    );
    return password;
  }

  /** One change of a person and its audit row, in one unit of work. */
  #change(
    person: Person,
    action: string,
    note: string | null,
    by: StaffActor,
    write: (db: BookingDb) => Promise<unknown>,
  ): Promise<void> {
    return this.database.write(async (db, handle) => {
      await write(db);
      const entry = {
        channel: by.channel,
        action,
        outcome: 'ok' as const,
        tenantId: person.workspaceId,
        actorId: by.actorId,
        objectIds: [person.id],
        note,
      };
      await this.database.stores.audit.append(auditRow(entry, this.clock().getTime()), handle);
    });
  }
}
