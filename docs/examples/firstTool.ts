// The "first tool" of the README; the region below is quoted there verbatim.
// #region first-tool
import { createGatehouse, sha256Hex } from '@gatehousejs/core';
import { z } from 'zod';

const notes = [{ id: 'n1', workspace: 'ws_1', text: 'Call Ada about the boiler', secret: 'never shown' }];

const gh = createGatehouse({
  rights: ['notes.read'] as const,
  services: (connection) => ({
    findNotes: (query: string) =>
      notes.filter((n) => n.workspace === connection.tenantId && n.text.includes(query)),
  }),
});

export const findNotes = gh.defineTool({
  name: 'find_notes',
  description: 'Finds notes in this workspace whose text contains the query.',
  effect: 'read',
  requires: ['notes.read'],
  input: z.object({ query: z.string().min(1) }),
  presenter: {
    outputSchema: { type: 'object', properties: { notes: { type: 'array' } }, required: ['notes'] },
    present: (found: typeof notes) => ({ notes: found.map((n) => ({ id: n.id, text: n.text })) }),
  },
  run: ({ input, services }) => services.findNotes(input.query),
});
// #endregion first-tool

const DEMO_TOKEN_HASH = sha256Hex('demo-token');
export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [findNotes],
  authenticate: async ({ token }) =>
    sha256Hex(token) === DEMO_TOKEN_HASH
      ? {
          ok: true,
          connection: {
            connectionId: 'c1',
            tenantId: 'ws_1',
            creatorId: 'p1',
            clientName: 'demo',
            channel: 'mcp',
            rights: new Set(['notes.read'] as const),
          },
        }
      : { ok: false, status: 401, reason: 'Unknown token.' },
});
// Serve it: `await listen(server, { port: 3333 })` from '@gatehousejs/core/node'.
