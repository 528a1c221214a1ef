/**
 * oauthAuthenticator with scopes as named sets of rights: rights cut live
 * (I4), tools listed by the person's rights, and 403 insufficient_scope for
 * a listed tool the token's scopes do not grant (I7's step-up exception).
 */
import {
  ConfigurationError,
  createGatehouse,
  MemoryAuditStore,
  MemoryReplayStore,
  separateCommits,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import { oauthAuthenticator, type VerifiedAccessToken } from '../src/index.js';
import { People, RIGHTS, type Right } from './desk.js';

const AUDIENCE = 'https://desk.example/mcp';
const SCOPES = {
  'notes:read': ['notes.read'],
  'notes:write': ['notes.read', 'notes.write'],
} satisfies Record<string, Right[]>;

/** Access tokens by their (opaque, test-only) value: the claims a verifier would return. */
function tokens() {
  const issued = new Map<string, VerifiedAccessToken>();
  const issue = (value: string, subject: string, scopes: string[]) =>
    issued.set(value, {
      audience: AUDIENCE,
      subject,
      tenantIds: ['t1'],
      scopes,
      expiresAt: Date.now() + 3_600_000,
      grantId: `grant_${value.slice(-4)}`,
      clientLabel: 'claude',
    });
  return { issue, verify: async (token: string) => issued.get(token) };
}

describe('oauthAuthenticator with scopes', () => {
  const people = new People();
  people.set('t1', 'alice', { active: true, rights: ['notes.read', 'notes.write'] });
  people.set('t1', 'bob', { active: true, rights: ['notes.read'] });
  const { issue, verify } = tokens();
  issue('at_alice_read_1234', 'alice', ['notes:read', 'unknown:scope']);
  issue('at_bob_write_5678', 'bob', ['notes:write']);
  const authenticate = oauthAuthenticator<Right>({ verify, audience: AUDIENCE, people, scopes: SCOPES });

  it('grants the rights of the token’s known scopes, cut by the person’s live rights (I4)', async () => {
    const alice = await authenticate({ token: 'at_alice_read_1234' });
    if (!alice.ok) throw new Error('alice’s token is valid');
    expect([...alice.connection.rights]).toEqual(['notes.read']);
    expect([...(alice.connection.scope?.listed ?? [])].sort()).toEqual(['notes.read', 'notes.write']);
    // bob's token asks for writing, bob holds only reading
    const bob = await authenticate({ token: 'at_bob_write_5678' });
    if (!bob.ok) throw new Error('bob’s token is valid');
    expect([...bob.connection.rights]).toEqual(['notes.read']);
    expect([...(bob.connection.scope?.listed ?? [])]).toEqual(['notes.read']);
  });

  it('names the fewest declared scopes that grant a tool’s rights', async () => {
    const alice = await authenticate({ token: 'at_alice_read_1234' });
    if (!alice.ok) throw new Error('alice’s token is valid');
    const scope = alice.connection.scope!;
    expect(scope.scopesFor(['notes.write'])).toEqual(['notes:write']);
    expect(scope.scopesFor(['notes.read', 'notes.write'])).toEqual(['notes:write']);
    expect(scope.scopesFor(['notes.read'])).toEqual(['notes:read']);
  });

  it('leaves connections without scope facts when no scopes are declared', async () => {
    const plain = oauthAuthenticator<Right>({ verify, audience: AUDIENCE, people });
    const alice = await plain({ token: 'at_alice_read_1234' });
    expect(alice.ok && alice.connection.scope).toBeUndefined();
    // a token's scopes grant nothing without the mapping
    expect(alice.ok && [...alice.connection.rights]).toEqual([]);
  });

  it('refuses scope names a challenge could not carry, and empty rights lists', () => {
    for (const scopes of [
      {},
      { 'notes read': ['notes.read'] },
      { 'a"b': ['notes.read'] },
      { 'notes:x': [] },
    ]) {
      expect(() =>
        oauthAuthenticator<Right>({ verify, audience: AUDIENCE, people, scopes: scopes as never }),
      ).toThrow(ConfigurationError);
    }
  });
});

/** A desk served over HTTP behind oauthAuthenticator with scopes; `runs` records every tool that ran. */
async function oauthDesk() {
  const people = new People();
  people.set('t1', 'alice', { active: true, rights: ['notes.read', 'notes.write'] });
  const notes = [{ id: 'n1', text: 'first' }];
  const runs: string[] = [];
  const audit = new MemoryAuditStore();
  const gh = createGatehouse({ rights: RIGHTS, services: () => ({ notes }) });
  const noteSchema = { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } } };
  const tools = [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes of this workspace.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({}),
      presenter: {
        outputSchema: { type: 'object', properties: { count: { type: 'number' } } },
        present: (n: number) => ({ count: n }),
      },
      run: ({ services }) => {
        runs.push('find_notes');
        return services.notes.length;
      },
    }),
    gh.defineTool({
      name: 'update_note',
      description: 'Replaces the text of a note.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({ id: z.string(), text: z.string().min(1) }),
      presenter: { outputSchema: noteSchema, present: (n: { id: string; text: string }) => ({ ...n }) },
      run: ({ input, services }) => {
        runs.push('update_note');
        const note = services.notes.find((n) => n.id === input.id)!;
        note.text = input.text;
        return note;
      },
    }),
  ];
  const { issue, verify } = tokens();
  const logs: string[] = [];
  const record = (obj: object, message?: string) => logs.push(`${JSON.stringify(obj)} ${message ?? ''}`);
  const server = gh.createServer(
    withGuards({
      name: 'desk',
      version: '1.0.0',
      tools,
      authenticate: oauthAuthenticator<Right>({ verify, audience: AUDIENCE, people, scopes: SCOPES }),
      audit,
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      logger: { info: record, warn: record, error: record },
    }),
  );
  const served = await listen(server, {
    oauth: {
      resource: AUDIENCE,
      authorizationServers: ['https://id.desk.example'],
      scopesSupported: ['notes:read'],
    },
  });
  const connect = async (token: string) => {
    const client = new Client({ name: 'desk-client', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(served.url, {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return client;
  };
  return { people, notes, runs, audit, issue, served, connect, logs };
}

describe('oauthAuthenticator with scopes over HTTP (I7 step-up)', () => {
  it('lists the write tool, answers insufficient_scope for it, and runs nothing', async () => {
    const desk = await oauthDesk();
    await using _served = desk.served;
    desk.issue('at_alice_read_1234', 'alice', ['notes:read']);
    const client = await desk.connect('at_alice_read_1234');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(['find_notes', 'list_recent_changes', 'update_note']);
      const error = await client
        .callTool({ name: 'update_note', arguments: { id: 'n1', text: 'changed' } })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(InsufficientScopeError);
      expect(error).toMatchObject({
        requiredScope: 'notes:write',
        resourceMetadataUrl: new URL('https://desk.example/.well-known/oauth-protected-resource/mcp'),
      });
      expect(desk.runs).toEqual([]);
      expect(desk.notes[0]?.text).toBe('first');
      expect(await desk.audit.list({ limit: 10 })).toEqual([]);
      expect(desk.logs.join('\n')).not.toContain('at_alice_read_1234');
    } finally {
      await client.close();
    }
  });

  it('runs the tool once the token carries the scope, and drops it when the person loses the right', async () => {
    const desk = await oauthDesk();
    await using _served = desk.served;
    desk.issue('at_alice_write_9999', 'alice', ['notes:write']);
    const client = await desk.connect('at_alice_write_9999');
    try {
      const done = await client.callTool({
        name: 'update_note',
        arguments: { id: 'n1', text: 'stepped up' },
      });
      expect(done.isError).toBeFalsy();
      expect(desk.runs).toEqual(['update_note']);
      expect(desk.notes[0]?.text).toBe('stepped up');
      // the role goes: the very next list hides the tool, and a call is a tool error, not a challenge
      desk.people.set('t1', 'alice', { active: true, rights: ['notes.read'] });
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).not.toContain('update_note');
      const refused = await client.callTool({ name: 'update_note', arguments: { id: 'n1', text: 'again' } });
      expect(refused.isError).toBe(true);
      expect(refused.structuredContent).toMatchObject({ error: { code: 'missing_right' } });
      expect(desk.runs).toEqual(['update_note']);
      expect(desk.notes[0]?.text).toBe('stepped up');
    } finally {
      await client.close();
    }
  });
});
