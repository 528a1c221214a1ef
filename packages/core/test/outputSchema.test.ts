import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import { createGatehouse, MemoryAuditStore, MemoryReplayStore, separateCommits } from '../src/index.js';
import { connection } from './fixtures.js';
import { recordingLogger } from './recording.js';

const SECRET = 'DECOY-SECRET-in-a-broken-result';

/** A server whose `find_notes` presenter returns what its outputSchema refuses, when told to. */
function brokenPresenterServer() {
  let broken = false;
  const rows: string[] = [];
  const gh = createGatehouse({
    rights: ['notes.read', 'notes.write'] as const,
    services: () => ({ add: (text: string) => rows.push(text) }),
  });
  const schema = {
    type: 'object',
    properties: { notes: { type: 'array', items: { type: 'string' } } },
    required: ['notes'],
    additionalProperties: false,
  };
  const present = () => (broken ? { notes: [{ secret: SECRET }] } : { notes: ['n1'] });
  const findNotes = gh.defineTool({
    name: 'find_notes',
    description: 'Finds notes.',
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: { outputSchema: schema, present },
    run: () => undefined,
  });
  const addNote = gh.defineTool({
    name: 'add_note',
    description: 'Adds a note.',
    effect: 'write',
    requires: ['notes.write'],
    input: z.object({ text: z.string() }),
    presenter: { outputSchema: schema, present },
    run: ({ input, services }) => services.add(input.text),
  });
  const logger = recordingLogger();
  const reported: { error: unknown; correlationId: string }[] = [];
  const audit = new MemoryAuditStore();
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools: [findNotes, addNote],
      authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
      logger,
      audit,
      replay: { store: new MemoryReplayStore() },
      unitOfWork: separateCommits(),
      onError: (error, { correlationId }) => reported.push({ error, correlationId: correlationId ?? '' }),
    }),
  );
  return { server, logger, reported, rows, breakIt: () => (broken = true) };
}

describe('result validation against the outputSchema (I19)', () => {
  it('passes a result that matches its outputSchema unchanged', async () => {
    const { server } = brokenPresenterServer();
    const result = await server.callTool(connection(), 'find_notes', {});
    expect(result.structuredContent).toEqual({ status: 'ok', result: { notes: ['n1'] } });
  });

  it('turns a result that breaks its outputSchema into an internal error with a correlation id', async () => {
    const { server, breakIt, reported } = brokenPresenterServer();
    breakIt();
    const result = await server.callTool(connection(), 'find_notes', {});
    expect(result.isError).toBe(true);
    const structured = result.structuredContent as {
      error: { code: string; details: { correlation_id: string } };
    };
    expect(structured.error.code).toBe('internal_error');
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.correlationId).toBe(structured.error.details.correlation_id);
    expect(String(reported[0]?.error)).toMatch(/find_notes: the result breaks its outputSchema at \/result/);
  });

  it('logs the tool and the path of the mismatch, never the value', async () => {
    const { server, breakIt, logger } = brokenPresenterServer();
    breakIt();
    await server.callTool(connection(), 'find_notes', {});
    const errors = logger.lines.filter((line) => line.level === 'error');
    expect(errors).toHaveLength(2);
    expect(errors[0]?.record).toMatchObject({ tool: 'find_notes', path: expect.stringMatching(/^\/result/) });
    expect(errors[1]?.record).toMatchObject({ tool: 'find_notes', outcome: 'internal_error' });
    expect(JSON.stringify(logger.lines)).not.toContain(SECRET);
  });

  it('answers a write whose result breaks the schema with an internal error, not invalid content', async () => {
    const { server, breakIt, rows } = brokenPresenterServer();
    breakIt();
    const result = await server.callTool(connection(), 'add_note', { text: 'milk' });
    expect(result.isError).toBe(true);
    expect(rows).toEqual(['milk']);
    expect(JSON.stringify(result.structuredContent)).not.toContain(SECRET);
  });

  it('refuses to build a server whose outputSchema does not compile', () => {
    const gh = createGatehouse({ rights: ['notes.read'] as const, services: () => ({}) });
    const bad = gh.defineTool({
      name: 'find_notes',
      description: 'Finds notes.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({}),
      presenter: {
        outputSchema: { type: 'object', properties: { n: { type: 'no-such-type' } } },
        present: () => ({}),
      },
      run: () => undefined,
    });
    expect(() =>
      gh.createServer(
        withGuards({
          name: 'notes',
          version: '1.0.0',
          tools: [bad],
          authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
        }),
      ),
    ).toThrow(/find_notes: outputSchema does not compile/);
  });
});
