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
import { killSwitchGuards, rightsGuard, tenantGuard, untrustedTextGuard } from '@gatehousejs/guards';
import { z } from 'zod';

const RIGHTS = ['notes.read', 'notes.export'] as const;
type Right = (typeof RIGHTS)[number];

// #region members
// Your people data, asked on every request: a token never holds more than its creator holds now (I4).
export const members = new Map<string, Right[]>([['ws_1/ada', ['notes.read', 'notes.export']]]);
const people: PeopleSource<Right> = {
  current: async (tenantId, personId) => {
    const rights = members.get(`${tenantId}/${personId}`);
    return rights && { active: true, rights };
  },
};
// #endregion members

export const audit = new MemoryAuditStore();
export const credentials = createCredentials({
  store: new MemoryCredentialStore(),
  audit,
  people,
  rights: RIGHTS,
});
export const switches = createSwitches({ store: new MemorySwitchStore(), audit });

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
  guards: [
    // #region live-guards
    tenantGuard(), // one connection, one tenant: from the credential, never from arguments (I3)
    rightsGuard(), // a tool is listed and callable only with the rights it requires, read live (I4)
    // #endregion live-guards
    // 503 (Retry-After: 300) while the global switch is on; a switched-off tenant sees no tools (I6)
    ...killSwitchGuards({ switches, retryAfterSeconds: 300 }),
    untrustedTextGuard(), // every string that leaves is cleaned (I16)
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
