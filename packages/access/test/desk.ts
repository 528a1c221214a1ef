import {
  type Connection,
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
  ToolError,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { killSwitchGuards } from '@gatehousejs/guards';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import {
  createCredentials,
  createSwitches,
  type PeopleSource,
  type Standing,
  toolsetVisibility,
} from '../src/index.js';

export const RIGHTS = ['notes.read', 'notes.write'] as const;
export type Right = (typeof RIGHTS)[number];

export interface Note {
  id: string;
  tenantId: string;
  text: string;
}

/** People of each tenant, editable by tests (remove a role, deactivate a person). */
export class People implements PeopleSource<Right> {
  readonly standings = new Map<string, { active: boolean; rights: Right[] }>();
  set(tenantId: string, personId: string, standing: { active: boolean; rights: Right[] }) {
    this.standings.set(`${tenantId}/${personId}`, standing);
  }
  async current(tenantId: string, personId: string): Promise<Standing<Right> | undefined> {
    return this.standings.get(`${tenantId}/${personId}`);
  }
}

class Notes {
  constructor(
    private readonly rows: Note[],
    private readonly connection: Connection<Right>,
  ) {}
  get(id: string): Note {
    const note = this.rows.find((n) => n.id === id && n.tenantId === this.connection.tenantId);
    if (!note) {
      throw new ToolError({
        code: 'not_found',
        message: `Note ${id} does not exist.`,
        fix: 'Search for it.',
        next: { tool: 'find_notes' },
      });
    }
    return note;
  }
  find(): Note[] {
    return this.rows.filter((n) => n.tenantId === this.connection.tenantId);
  }
  update(id: string, text: string): Note {
    const note = this.get(id);
    note.text = text;
    return note;
  }
}

const present = (n: Note) => ({ id: n.id, text: n.text });
const noteSchema = { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } };

/** A small multi-tenant notes desk with every access mechanism of issue 4 installed. */
export async function startDesk(options: { readRate?: number } = {}) {
  const rows: Note[] = [
    { id: 'n1', tenantId: 't1', text: 'tenant one' },
    { id: 'n2', tenantId: 't2', text: 'tenant two' },
  ];
  const people = new People();
  people.set('t1', 'alice', { active: true, rights: ['notes.read', 'notes.write'] });
  people.set('t2', 'alice', { active: true, rights: ['notes.read', 'notes.write'] });
  people.set('t1', 'bob', { active: true, rights: ['notes.read'] });
  const audit = new MemoryAuditStore();
  const credentialStore = new MemoryCredentialStore();
  const credentials = createCredentials({ store: credentialStore, audit, people, rights: RIGHTS });
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  const runs: string[] = [];
  const gh = createGatehouse({ rights: RIGHTS, services: (c) => ({ notes: new Notes(rows, c) }) });
  const tools = [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes of this workspace.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({}),
      presenter: {
        outputSchema: { type: 'object', properties: { notes: { type: 'array', items: noteSchema } } },
        present: (n: Note[]) => ({ notes: n.map(present) }),
      },
      run: ({ services }) => {
        runs.push('find_notes');
        return services.notes.find();
      },
    }),
    gh.defineTool({
      name: 'get_note',
      description: 'Returns one note.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({ id: z.string() }),
      presenter: { outputSchema: noteSchema, present },
      run: ({ input, services }) => {
        runs.push('get_note');
        return services.notes.get(input.id);
      },
    }),
    gh.defineTool({
      name: 'update_note',
      description: 'Replaces the text of a note.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({ id: z.string(), text: z.string().min(1) }),
      presenter: { outputSchema: noteSchema, present },
      run: ({ input, services }) => {
        runs.push('update_note');
        return services.notes.update(input.id, input.text);
      },
    }),
  ];
  const server = gh.createServer(
    withGuards({
      name: 'desk',
      version: '1.0.0',
      tools,
      authenticate: credentials.authenticate,
      audit,
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      rate: {
        store: new MemoryRateBucketStore(),
        limits: { read: { capacity: options.readRate ?? 100, refillPerSecond: 0.001 } },
      },
      // The switches with their own retry hint: 503 answers `Retry-After: 42` while the global one is on.
      guards: [...killSwitchGuards({ switches, retryAfterSeconds: 42 })],
      visibility: [toolsetVisibility({ compact: ['find_notes', 'get_note'] })],
    }),
  );
  const served = await listen(server, {
    tenantFrom: (request) => request.headers.get('x-tenant') ?? undefined,
  });
  return { rows, people, audit, credentialStore, credentials, switches, runs, server, served };
}
