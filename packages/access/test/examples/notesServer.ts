// The first example of the package README; the region below is quoted there verbatim.
// #region readme
import {
  createCredentials,
  createSwitches,
  type PeopleSource,
  planVisibility,
  toolsetVisibility,
} from '@gatehousejs/access';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemorySwitchStore,
} from '@gatehousejs/core';
import { z } from 'zod';

const RIGHTS = ['notes.read', 'notes.export'] as const;
type Right = (typeof RIGHTS)[number];

// Your people data, asked on every request: a token never holds more than its creator holds now (I4).
export const members = new Map<string, Right[]>([['ws_1/ada', ['notes.read', 'notes.export']]]);
const people: PeopleSource<Right> = {
  current: async (tenantId, personId) => {
    const rights = members.get(`${tenantId}/${personId}`);
    return rights && { active: true, rights };
  },
};

export const audit = new MemoryAuditStore();
export const credentials = createCredentials({
  store: new MemoryCredentialStore(),
  audit,
  people,
  rights: RIGHTS,
});
export const switches = createSwitches({ store: new MemorySwitchStore(), audit, retryAfterSeconds: 300 });

const gh = createGatehouse({ rights: RIGHTS, services: () => ({ notes: [{ id: 'n1', text: 'Call Ada' }] }) });
const notesPresenter = {
  outputSchema: { type: 'object', properties: { notes: { type: 'array' } } },
  present: (notes: { id: string; text: string }[]) => ({ notes }),
};
const tools = [
  gh.defineTool({
    name: 'find_notes',
    description: 'Lists the notes of this workspace.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: notesPresenter,
    run: ({ services }) => services.notes,
  }),
  gh.defineTool({
    name: 'export_notes',
    description: 'Returns every note of this workspace for an export.',
    effect: 'read',
    requires: ['notes.export'],
    input: z.object({}),
    presenter: notesPresenter,
    run: ({ services }) => services.notes,
  }),
];

export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools,
  authenticate: credentials.authenticate, // MCP tokens only, rights cut live (I4, I5)
  guards: [switches.guard], // 503 while the global switch is on; a switched-off tenant sees no tools (I6)
  visibility: [
    toolsetVisibility({ compact: ['find_notes'] }), // chosen per token: mint({ toolset: 'compact' })
    planVisibility({ planOf: async () => 'free', plans: { export_notes: ['pro'] } }), // your plan lookup
  ],
});

// An admin page or a CLI command mints a token for an agent: show it once; only its hash is stored.
export const { token } = await credentials.mint({
  tenantIds: ['ws_1'],
  creatorId: 'ada',
  rights: ['notes.read', 'notes.export'],
  clientLabel: 'Claude Code on Ada’s laptop',
  channel: 'cli',
});
// #endregion readme
