import { duplicateGuard } from '@gatehousejs/guards';
import { z } from 'zod';
import {
  type Connection,
  createGatehouse,
  type Gatehouse,
  type JsonObject,
  MemoryAuditStore,
  MemoryReplayStore,
  type Presenter,
  separateCommits,
} from '../src/index.js';

/** A presenter that lists its fields by hand; the presenters package offers the real one. */
export function listPresenter<T extends JsonObject>(fields: readonly (keyof T & string)[]): Presenter<T> {
  return {
    outputSchema: {
      type: 'object',
      properties: Object.fromEntries(fields.map((f) => [f, {}])),
      additionalProperties: false,
    },
    present: (value) => Object.fromEntries(fields.map((f) => [f, value[f] ?? null])),
  };
}

/**
 * What `createServer` needs for write tools, in memory: an audit store, the
 * replay stage's store and the unit of work of stores that commit on their own.
 */
export function writeStores() {
  return {
    audit: new MemoryAuditStore(),
    replay: { store: new MemoryReplayStore() },
    unitOfWork: separateCommits(),
  };
}

export const RIGHTS = ['notes.read', 'notes.write'] as const;
export type Right = (typeof RIGHTS)[number];

export interface Note {
  id: string;
  tenant: string;
  text: string;
  secret: string;
}

/** An in-memory note service that records what it did, scoped to the connection's tenant. */
export class NoteService {
  readonly calls: string[] = [];
  constructor(
    readonly rows: Note[],
    readonly connection: Connection<Right>,
  ) {}
  find(query: string): Note[] {
    this.calls.push(`find:${query}`);
    return this.rows.filter((n) => n.tenant === this.connection.tenantId && n.text.includes(query));
  }
  create(text: string): Note {
    this.calls.push(`create:${text}`);
    const note = {
      id: `n${this.rows.length + 1}`,
      tenant: this.connection.tenantId,
      text,
      secret: 'DECOY-SECRET',
    };
    this.rows.push(note);
    return note;
  }
}

/** A connection of tenant `t1` holding `rights`. */
export function connectionWith<R extends string>(
  rights: readonly R[],
  overrides: Partial<Connection<R>> = {},
): Connection<R> {
  return {
    connectionId: 'conn_1',
    tenantId: 't1',
    creatorId: 'p1',
    clientName: 'test-client',
    channel: 'mcp',
    rights: new Set<R>(rights),
    ...overrides,
  };
}

export function connection(overrides: Partial<Connection<Right>> = {}): Connection<Right> {
  return connectionWith(RIGHTS, overrides);
}

/** A small notes app: one read and one write tool over NoteService. */
export function notesApp(rows: Note[] = []) {
  const services: NoteService[] = [];
  const gh = createGatehouse({
    rights: RIGHTS,
    services: (c) => {
      const service = new NoteService(rows, c);
      services.push(service);
      return { notes: service };
    },
  });
  const notePresenter = listPresenter<{ id: string; text: string }>(['id', 'text']);
  const findNotes = gh.defineTool({
    name: 'find_notes',
    description: 'Finds notes whose text contains the query.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({ query: z.string().min(1).describe('Text to look for.') }),
    presenter: {
      outputSchema: { type: 'object', properties: { notes: { type: 'array' } }, required: ['notes'] },
      present: (notes: Note[]) => ({
        notes: notes.map((n) => notePresenter.present(n, { now: new Date() })),
      }),
    },
    run: ({ input, services }) => services.notes.find(input.query),
  });
  const addNote = gh.defineTool({
    name: 'add_note',
    description: 'Creates a note.',
    effect: 'write',
    requires: ['notes.write'],
    input: z.object({ text: z.string().min(1).max(200) }),
    presenter: {
      outputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } },
      present: (n: Note) => ({ id: n.id, text: n.text }),
    },
    run: ({ input, services }) => services.notes.create(input.text),
  });
  return { gh, rows, services, findNotes, addNote };
}

/** What {@link bookingCreateTools} needs of a host's services: find by business key, create. */
export interface BookingCreateServices<B> {
  find(customer: string, day: string): B | undefined;
  create(customer: string, day: string): B;
}

/**
 * `create_booking`, a create tool whose business key is customer and day
 * (the duplicate check, I11), and its sibling `update_booking`, whose run
 * answers `updated(id, day)` without touching anything.
 */
export function bookingCreateTools<B extends JsonObject & { id: string }, S extends BookingCreateServices<B>>(
  gh: Gatehouse<'bookings.write', S>,
  presenter: Presenter<B>,
  updated: (id: string, day: string) => B,
) {
  const create = gh.defineTool({
    name: 'create_booking',
    description: 'Creates a booking.',
    effect: 'write',
    requires: ['bookings.write'],
    input: z.object({ customer: z.string(), day: z.string(), note: z.string().optional() }),
    presenter,
    guards: () => [
      duplicateGuard<{ customer: string; day: string }, S>({
        key: (i) => ({ customer: i.customer, day: i.day }),
        find: ({ input: i, services }) => services.find(i.customer, i.day),
        updateTool: 'update_booking',
      }),
    ],
    run: ({ input: i, services }) => services.create(i.customer, i.day),
  });
  const update = gh.defineTool({
    name: 'update_booking',
    description: 'Updates a booking.',
    effect: 'write',
    requires: ['bookings.write'],
    input: z.object({ id: z.string(), day: z.string() }),
    presenter,
    run: ({ input: i }) => updated(i.id, i.day),
  });
  return [create, update] as const;
}
