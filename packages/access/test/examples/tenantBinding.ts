// The examples of docs/access/tenant-binding.md; the regions below are quoted there verbatim.
import { createCredentials, createSwitches, type PeopleSource } from '@gatehousejs/access';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryRateBucketStore,
  MemorySwitchStore,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';
import { z } from 'zod';

const RIGHTS = ['notes.read'] as const;

/** The notes of two workspaces, in one table. */
export const notes = [
  { id: 'n1', workspace: 'ws_1', text: 'Call Ada' },
  { id: 'n2', workspace: 'ws_2', text: 'Call Bob' },
];
const people: PeopleSource<(typeof RIGHTS)[number]> = {
  current: async () => ({ active: true, rights: ['notes.read'] }),
};
export const audit = new MemoryAuditStore();
export const credentials = createCredentials({
  store: new MemoryCredentialStore(),
  audit,
  people,
  rights: RIGHTS,
});
export const switches = createSwitches({ store: new MemorySwitchStore(), audit });

// #region services
export const gh = createGatehouse({
  rights: RIGHTS,
  // The tenant comes from the connection; every lookup is scoped to it (I3).
  services: (connection) => ({ notes: notes.filter((n) => n.workspace === connection.tenantId) }),
});
// #endregion services

const findNotes = gh.defineTool({
  name: 'find_notes',
  description: 'Lists the notes of this workspace.',
  effect: 'read',
  requires: ['notes.read'],
  input: z.object({}),
  presenter: {
    outputSchema: { type: 'object', properties: { notes: { type: 'array' } } },
    present: (found: { id: string; text: string }[]) => ({
      notes: found.map(({ id, text }) => ({ id, text })),
    }),
  },
  run: ({ services }) => services.notes,
});

// #region guards
export const guards = standardGuards(
  { rateBuckets: new MemoryRateBucketStore() }, // a read-only server: no replay or pending-action store
  {
    switches,
    tenant: { names: ['team', 'team_id'] }, // the product's own word for a tenant is refused too
  },
);
// #endregion guards

export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [findNotes],
  authenticate: credentials.authenticate,
  guards,
});

/** Starts the example on a free loopback port. */
export async function start() {
  // #region listen
  const served = await listen(server, {
    port: 0,
    // A credential that serves several workspaces acts in the one this header names (I3).
    tenantFrom: (request) => request.headers.get('x-workspace') ?? undefined,
  });
  // #endregion listen
  return served;
}
