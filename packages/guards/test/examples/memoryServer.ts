// The example of the package README; the region below is quoted there verbatim.
// #region memory-server
import { createSwitches } from '@gatehousejs/access';
import {
  createGatehouse,
  digest,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
  ToolError,
} from '@gatehousejs/core';
import { standardGuards, toolGuards } from '@gatehousejs/guards';
import { z } from 'zod';

interface Note {
  id: string;
  tenantId: string;
  text: string;
  pinned: boolean;
  revision: number;
}
export const notes: Note[] = [
  { id: 'n1', tenantId: 'ws_1', text: 'Call Ada', pinned: false, revision: 1 },
  { id: 'n2', tenantId: 'ws_1', text: 'Call Bob', pinned: false, revision: 1 },
];

type Services = { readonly notes: Note[] }; // the caller's tenant's notes only
const gh = createGatehouse({
  rights: ['notes.write'] as const,
  services: (connection): Services => ({ notes: notes.filter((n) => n.tenantId === connection.tenantId) }),
  toolGuards, // g.version and g.batchCount below, typed by each tool's input and these services
});
const versionOf = (n: Note) => digest({ id: n.id, revision: n.revision }).slice(0, 16);
const present = (n: Note) => ({ id: n.id, text: n.text, pinned: n.pinned, version: versionOf(n) });
const notePresenter = { outputSchema: { type: 'object' }, present };
const notesPresenter = {
  outputSchema: { type: 'object', properties: { notes: { type: 'array' } } },
  present: (list: Note[]) => ({ notes: list.map(present) }),
};

const updateNote = gh.defineTool({
  name: 'update_note',
  description: 'Replaces the text of a note, given the version you read.',
  effect: 'write',
  requires: ['notes.write'],
  input: z.object({ id: z.string(), version: z.string(), text: z.string().min(1) }),
  presenter: notePresenter,
  guards: (g) => [
    // A stale version answers conflict with the current note; nothing runs (I12).
    g.version({
      current: ({ input, services }) => {
        const note = services.notes.find((n) => n.id === input.id);
        return note && { version: versionOf(note), object: present(note) };
      },
    }),
  ],
  run: ({ input, services }) => {
    const note = services.notes.find((n) => n.id === input.id);
    if (!note)
      throw new ToolError({ code: 'not_found', message: `No note ${input.id}.`, fix: 'Find it first.' });
    return Object.assign(note, { text: input.text, revision: note.revision + 1 });
  },
});

const pinNotes = gh.defineTool({
  name: 'pin_notes',
  description: 'Pins the notes whose text contains a word.',
  effect: 'write',
  requires: ['notes.write'],
  input: z.object({ filter: z.object({ contains: z.string().min(1) }), expected_count: z.number().int() }),
  presenter: notesPresenter,
  guards: (g) => [
    // The filter must match exactly expected_count notes, or the error lists them and nothing runs (I13).
    g.batchCount({
      match: ({ input, services }) => {
        const found = services.notes.filter((n) => n.text.includes(input.filter.contains));
        return { total: found.length, sample: found.map(present) };
      },
    }),
  ],
  run: ({ input, services }) =>
    services.notes
      .filter((n) => n.text.includes(input.filter.contains))
      .map((n) => Object.assign(n, { pinned: true, revision: n.revision + 1 })),
});

export const audit = new MemoryAuditStore();
const stores = {
  replay: new MemoryReplayStore(), // a re-sent write returns its first result
  pendingActions: new MemoryPendingActionStore(),
  rateBuckets: new MemoryRateBucketStore(),
};
const switches = createSwitches({ store: new MemorySwitchStore(), audit });
export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [updateNote, pinNotes],
  authenticate: async () => ({ ok: false, status: 401, reason: 'Plug in your credentials here.' }),
  audit,
  unitOfWork: separateCommits(), // memory stores commit on their own: the weaker promise
  guards: standardGuards(stores, { switches }), // tenant, rights, kill switches, rate, replay, confirm, output
});
// #endregion memory-server
