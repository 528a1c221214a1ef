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

/** A workspace a person works in, and what they may do there. */
export interface Membership {
  readonly workspaceId: string;
  readonly name: string;
  readonly role: Role;
  readonly rights: readonly Right[];
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

/** Changes the row that gives a person their standing in `person.workspaceId`: their own, else their membership there. */
async function standingRow(db: BookingDb, person: Person, set: { role?: string; active?: 0 }): Promise<void> {
  const own = await db
    .updateTable('people')
    .set(set)
    .where('id', '=', person.id)
    .where('workspace_id', '=', person.workspaceId)
    .executeTakeFirst();
  if (Number(own.numUpdatedRows) > 0) return;
  await db
    .updateTable('memberships')
    .set(set)
    .where('person_id', '=', person.id)
    .where('workspace_id', '=', person.workspaceId)
    .execute();
}

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

  /**
   * A person as a member of a workspace, or undefined when they are not one:
   * their own workspace's row, else their membership there, with the role
   * they hold there (active only while both the person and the membership are).
   */
  async get(workspaceId: string, personId: string): Promise<Person | undefined> {
    const row = await this.database.reader
      .selectFrom('people')
      .select(COLUMNS)
      .where('id', '=', personId)
      .executeTakeFirst();
    if (!row) return undefined;
    if (row.workspace_id === workspaceId) return toPerson(row);
    const membership = await this.database.reader
      .selectFrom('memberships')
      .select(['role', 'active'])
      .where('person_id', '=', personId)
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!membership) return undefined;
    const active = Number(row.active) === 1 && Number(membership.active) === 1;
    return { ...toPerson(row), workspaceId, role: membership.role as Role, active, operator: false };
  }

  /**
   * Every workspace a person works in now, their own first: the workspace,
   * its name, and the rights they hold there. Empty when they are deactivated.
   */
  async workspacesOf(personId: string): Promise<readonly Membership[]> {
    const home = await this.database.reader
      .selectFrom('people')
      .innerJoin('workspaces', 'workspaces.id', 'people.workspace_id')
      .select(['people.workspace_id as workspaceId', 'workspaces.name', 'people.role', 'people.active'])
      .where('people.id', '=', personId)
      .executeTakeFirst();
    if (!home || Number(home.active) !== 1) return [];
    const others = await this.database.reader
      .selectFrom('memberships')
      .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .select(['memberships.workspace_id as workspaceId', 'workspaces.name', 'memberships.role'])
      .where('memberships.person_id', '=', personId)
      .where('memberships.active', '=', 1)
      .orderBy('workspaces.name')
      .execute();
    return [home, ...others].map((m) => ({
      workspaceId: m.workspaceId,
      name: m.name,
      role: m.role as Role,
      rights: rightsOf(m.role as Role, true),
    }));
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

  /** Gives a person another role in `person.workspaceId` (their own, or a membership); audited (`person.role`). */
  setRole(person: Person, role: Role, by: StaffActor): Promise<void> {
    return this.#change(person, 'person.role', `before: ${person.role}; after: ${role}`, by, (db) =>
      standingRow(db, person, { role }),
    );
  }

  /**
   * Deactivates a person in `person.workspaceId`: in their own workspace the
   * person altogether (every token, session and membership), else only that
   * membership. Their MCP tokens there stop working on the next request (I4); audited.
   */
  deactivate(person: Person, by: StaffActor): Promise<void> {
    return this.#change(person, 'person.deactivate', null, by, (db) =>
      standingRow(db, person, { active: 0 }),
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
