// The same server with add_note moved to defineTool: the "after" of docs/migrating-from-sdk-v1.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createSwitches } from '@gatehousejs/access';
import {
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  MemorySwitchStore,
  separateCommits,
  sha256Hex,
} from '@gatehousejs/core';
import { createAdmissionMiddleware, type MountOptions, mountGatehouse } from '@gatehousejs/core/sdk-v1';
import { standardGuards } from '@gatehousejs/guards';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

/** A note as the product stores it. */
export interface Note {
  readonly id: string;
  readonly workspace: string;
  readonly text: string;
}

/** The product's database (in memory here). */
export const db: Note[] = [{ id: 'n1', workspace: 'ws_1', text: 'Call Ada about the boiler' }];

/** The product's note service: the one read and write path, shared with the REST API. */
export class NoteService {
  constructor(readonly workspace: string) {}
  find(query: string): Note[] {
    return db.filter((n) => n.workspace === this.workspace && n.text.includes(query));
  }
  add(text: string): Note {
    const note = { id: `n${db.length + 1}`, workspace: this.workspace, text };
    db.push(note);
    return note;
  }
}

const gh = createGatehouse({
  rights: ['notes.write'] as const,
  services: (connection) => ({ notes: new NoteService(connection.tenantId) }),
});

const addNote = gh.defineTool({
  name: 'add_note',
  description: 'Adds a note to the workspace.',
  effect: 'write',
  requires: ['notes.write'],
  input: z.object({ text: z.string().min(1).max(200) }),
  presenter: {
    outputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } },
    present: (note: Note) => ({ id: note.id, text: note.text }),
  },
  run: ({ input, services }) => services.notes.add(input.text),
});

/** Every MCP write lands here (use a SQL store in production). */
export const audit = new MemoryAuditStore();

/** The kill switches an operator flips: all agent access, or one workspace's (I6). Audited. */
const switches = createSwitches({ store: new MemorySwitchStore(), audit });

/** A re-sent write answers its first result instead of running again (I10). */
const stores = { replay: new MemoryReplayStore() };

/** MCP credentials by token hash, each bound to one workspace (I3) and the person who created it. */
const credentials = new Map([[sha256Hex('demo-token'), { workspace: 'ws_1', creator: 'p1' }]]);

/** The Gatehouse side of the server: its tools and who may call them. */
export const gatehouse = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [addNote],
  audit,
  // The tenant binding, live rights, kill switches, output cleaning, and replay for add_note.
  guards: standardGuards(stores, { switches }),
  // Memory stores commit on their own; a SQL host passes its stores' unit of work.
  unitOfWork: separateCommits(),
  authenticate: async ({ token }) => {
    const grant = credentials.get(sha256Hex(token));
    if (!grant) return { ok: false, status: 401, reason: 'Unknown token.' };
    const rights = new Set(['notes.write'] as const);
    const connection = { connectionId: 'c1', tenantId: grant.workspace, creatorId: grant.creator };
    return { ok: true, connection: { ...connection, clientName: 'demo', channel: 'mcp', rights } };
  },
});

/** The MCP server: find_notes still hand-written, add_note from Gatehouse. */
export function createServer(mount: MountOptions = {}): McpServer {
  const notes = new NoteService(process.env.NOTES_WORKSPACE ?? 'ws_1');
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  mountGatehouse(server, gatehouse, mount);
  server.registerTool(
    'find_notes',
    {
      description: 'Finds notes whose text contains the query.',
      inputSchema: { query: z.string().min(1) },
    },
    async ({ query }) => ({ content: [{ type: 'text', text: JSON.stringify(notes.find(query)) }] }),
  );
  return server;
}

/** Serves one stateless Streamable HTTP request with a fresh server. */
async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const server = createServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const admission = createAdmissionMiddleware(gatehouse);

/** The node:http listener of the MCP endpoint, behind Gatehouse admission. */
export const httpListener = (req: IncomingMessage, res: ServerResponse): void =>
  void admission(req, res, () => handle(req, res));

/** Serves the server over stdio, with the credential from the environment. */
export async function main(): Promise<void> {
  await createServer({ credential: { token: process.env.NOTES_TOKEN } }).connect(new StdioServerTransport());
}
