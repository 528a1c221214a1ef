// The example of docs/oauth.md; every TypeScript block there is quoted from this file.
import { oauthAuthenticator, type PeopleSource, type VerifiedAccessToken } from '@gatehousejs/access';
import { createGatehouse, protectedResourceMetadata } from '@gatehousejs/core';
import { createHttpHandler } from '@gatehousejs/core/http';
import { listen } from '@gatehousejs/core/node';
import { z } from 'zod';
import { withGuards } from '../../../../test/withGuards.js';

const RIGHTS = ['notes.read', 'notes.export'] as const;
type Right = (typeof RIGHTS)[number];

/** Ada's live rights, editable by the docs test (a role dropped). */
export const members = new Map<string, Right[]>([['ws_1/ada', ['notes.read', 'notes.export']]]);
const people: PeopleSource<Right> = {
  current: async (tenantId, personId) => {
    const rights = members.get(`${tenantId}/${personId}`);
    return rights && { active: true, rights };
  },
};

/** Stands in for your JWT library: token value → the claims it verified. */
export const issued = new Map<string, VerifiedAccessToken>();
const myJwtVerifier = async (token: string) => issued.get(token);

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

// #region scopes
const authenticate = oauthAuthenticator({
  audience: 'https://notes.example/mcp', // this server's resource identifier (I21)
  verify: async (token) => myJwtVerifier(token), // signature, issuer → claims (with `scopes`) or undefined
  people,
  scopes: {
    'notes:read': ['notes.read'],
    'notes:export': ['notes.read', 'notes.export'],
  },
});
// #endregion scopes

export const server = gh.createServer(withGuards({ name: 'notes', version: '1.0.0', tools, authenticate }));

/** Starts the example on a free loopback port. */
export async function start() {
  // #region listen
  const served = await listen(server, {
    port: 0,
    oauth: {
      resource: 'https://notes.example/mcp',
      authorizationServers: ['https://id.notes.example'],
      scopesSupported: ['notes:read'],
      resourceName: 'Notes',
    },
  });
  // #endregion listen
  return served;
}

/** The same server behind `createHttpHandler` (Workers, Deno, Bun, Hono): the host mounts the metadata. */
export function mounted() {
  // #region mount
  const oauth = { resource: 'https://notes.example/mcp', authorizationServers: ['https://id.notes.example'] };
  const metadata = protectedResourceMetadata(oauth); // metadata.url is what 401 challenges name
  const mcp = createHttpHandler(server, { oauth, allowedHosts: ['notes.example'] });
  const fetch = (request: Request) => metadata.fetch(request) ?? mcp.fetch(request);
  // #endregion mount
  return { metadata, fetch };
}
