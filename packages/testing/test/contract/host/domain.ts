import type { Connection } from '@gatehousejs/core';
import { ToolError } from '@gatehousejs/core';
import type { Temporal } from 'temporal-polyfill';
import type { Flaws } from './flaws.js';

export const RIGHTS = ['notes.read', 'notes.write'] as const;
export type Right = (typeof RIGHTS)[number];

export interface NoteRow {
  id: string;
  tenantId: string;
  title: string;
  /** Written by customers: third-party text (I16). */
  body: string;
  /** A secret column that never leaves (I17). */
  shareSecret: string;
  createdBy: string;
  archived: boolean;
}

export interface ReminderRow {
  id: string;
  tenantId: string;
  noteId: string;
  at: Temporal.ZonedDateTime;
}

/** The product's data: rows and the outbox of sent messages. */
export interface DeskData {
  readonly notes: NoteRow[];
  readonly reminders: ReminderRow[];
  readonly outbox: string[];
}

/** The seed rows: tenant t1 (alice, bob) and tenant t2 (bea). */
export function seedNotes(): NoteRow[] {
  const note = (id: string, tenantId: string, title: string, body: string): NoteRow => ({
    id,
    tenantId,
    title,
    body,
    shareSecret: `share_${id}_secret`,
    createdBy: tenantId === 't1' ? 'alice' : 'bea',
    archived: false,
  });
  return [
    note('n1', 't1', 'Boiler service', 'The boiler makes a knocking noise.'),
    note('n2', 't1', 'Gate code', 'Code is 4711, please ring first.'),
    note('n3', 't2', 'Boiler service', 'Tenant two: leaking valve.'),
    note('n4', 't1', 'Gate repair', 'Hinge is loose.'),
    note('n5', 't1', 'Gate lock', 'Lock sticks in winter.'),
  ];
}

const notFound = (id: string) =>
  new ToolError({
    code: 'not_found',
    message: `Note ${id} does not exist in this workspace.`,
    fix: 'Search for the note first.',
    next: { tool: 'find_notes' },
  });

/** The notes service: one write path per function; the actor comes from the connection (I2). */
export class NoteService {
  constructor(
    private readonly data: DeskData,
    private readonly connection: Connection<Right>,
    private readonly flaws: Flaws,
  ) {}

  private mine(note: NoteRow): boolean {
    return (this.flaws.noTenantScoping || note.tenantId === this.connection.tenantId) && !note.archived;
  }

  get(id: string): NoteRow {
    const note = this.data.notes.find((n) => n.id === id && this.mine(n));
    if (!note) throw notFound(id);
    return note;
  }

  find(query: string | undefined): NoteRow[] {
    const matches = (n: NoteRow) =>
      query === undefined ||
      (this.flaws.regexSearch
        ? new RegExp(query, 'i').test(n.title)
        : n.title.toLowerCase().includes(query.toLowerCase()));
    const listed = (n: NoteRow) => (this.flaws.unscopedFind ? !n.archived : this.mine(n));
    return this.data.notes.filter((n) => listed(n) && matches(n));
  }

  /** The note with this exact title in the caller's tenant (the duplicate guard's business key). */
  byTitle(title: string): NoteRow | undefined {
    return this.data.notes.find((n) => this.mine(n) && n.title === title);
  }

  create(title: string, body: string): NoteRow {
    const c = this.connection;
    const id = `n${this.data.notes.length + 1}`;
    const note: NoteRow = {
      id,
      tenantId: c.tenantId,
      title,
      body,
      shareSecret: `share_${id}_secret`,
      createdBy: c.creatorId,
      archived: false,
    };
    this.data.notes.push(note);
    if (this.flaws.writesBeforeValidating && /[<>]/.test(title)) {
      throw new ToolError({
        code: 'invalid_arguments',
        message: 'A title may not hold angle brackets.',
        fix: 'Remove < and >.',
      });
    }
    return note;
  }

  update(id: string, body: string): NoteRow {
    const note = this.get(id);
    note.body = body;
    if (this.flaws.mailsOnUpdate) this.data.outbox.push(`note ${id} changed`);
    return note;
  }

  archive(ids: readonly string[]): string[] {
    const notes = ids.map((id) => this.get(id));
    for (const note of notes) note.archived = true;
    return notes.map((n) => n.id);
  }

  schedule(noteId: string, at: Temporal.ZonedDateTime): ReminderRow {
    this.get(noteId);
    const reminder = {
      id: `r${this.data.reminders.length + 1}`,
      tenantId: this.connection.tenantId,
      noteId,
      at,
    };
    this.data.reminders.push(reminder);
    return reminder;
  }
}
