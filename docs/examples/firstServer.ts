// The first server of the README; the region below is quoted there verbatim.
// #region first-server
import { createSwitches } from '@gatehousejs/access';
import { createGatehouse, MemoryAuditStore, MemorySwitchStore, sha256Hex } from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';
import { definePresenter, field } from '@gatehousejs/presenters';
import { z } from 'zod';

if (!process.env.NOTES_TOKEN) throw new Error('Set NOTES_TOKEN, e.g. to $(openssl rand -hex 32)');
const tokenHash = sha256Hex(process.env.NOTES_TOKEN); // clients send it as a bearer token; never logged
const demo = { connectionId: 'c1', tenantId: 'ws_1', creatorId: 'p1', clientName: 'demo' };
const notes = [{ id: 'n1', workspace: 'ws_1', text: 'Call Ada about the boiler', secret: 'never shown' }];

const gh = createGatehouse({
  rights: ['notes.read'] as const,
  services: (connection) => ({ notes: notes.filter((n) => n.workspace === connection.tenantId) }),
});
const noteFields = field.object({ id: field.string(), text: field.string() }); // only these leave
const findNotes = gh.defineTool({
  name: 'find_notes',
  description: 'Finds notes in this workspace whose text contains the query.',
  effect: 'read',
  requires: ['notes.read'],
  input: z.object({ query: z.string().min(1) }),
  presenter: definePresenter({ fields: { notes: field.list(noteFields) } }),
  run: ({ input, services }) => ({ notes: services.notes.filter((n) => n.text.includes(input.query)) }),
});

const switches = createSwitches({ store: new MemorySwitchStore(), audit: new MemoryAuditStore() });
const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [findNotes],
  guards: standardGuards({}, { switches }), // tenant binding, live rights, kill switches, output cleaning
  authenticate: async ({ token }) =>
    sha256Hex(token) === tokenHash
      ? { ok: true, connection: { ...demo, channel: 'mcp', rights: new Set(['notes.read'] as const) } }
      : { ok: false, status: 401, reason: 'Unknown token.' },
});
export const running = await listen(server, { port: Number(process.env.PORT ?? 3333) });
console.log(`Notes MCP server on ${running.url}`);
// #endregion first-server
