// An existing SDK v1 server with two hand-written tools: the "before" of docs/migrating-from-sdk-v1.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/** The MCP server: both tools written by hand. */
export function createServer(): McpServer {
  const notes = new NoteService(process.env.NOTES_WORKSPACE ?? 'ws_1');
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  server.registerTool(
    'find_notes',
    {
      description: 'Finds notes whose text contains the query.',
      inputSchema: { query: z.string().min(1) },
    },
    async ({ query }) => ({ content: [{ type: 'text', text: JSON.stringify(notes.find(query)) }] }),
  );
  server.registerTool(
    'add_note',
    {
      description: 'Adds a note to the workspace.',
      inputSchema: { text: z.string().min(1).max(200) },
    },
    async ({ text }) => ({ content: [{ type: 'text', text: JSON.stringify(notes.add(text)) }] }),
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

/** The node:http listener of the MCP endpoint. */
export const httpListener = (req: IncomingMessage, res: ServerResponse): void => void handle(req, res);

/** Serves the server over stdio. */
export async function main(): Promise<void> {
  await createServer().connect(new StdioServerTransport());
}
