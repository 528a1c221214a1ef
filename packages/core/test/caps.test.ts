import { describe, expect, it } from 'vitest';
import { withGuards } from '../../../test/withGuards.js';
import { type CallResult, DEFAULT_ARGUMENT_CAPS } from '../src/index.js';
import { connection, notesApp, writeStores } from './fixtures.js';

type Refusal = { status: string; error: { code: string; message: string; details: Record<string, unknown> } };
const refusal = (result: CallResult) => result.structuredContent as Refusal;

function build(
  argumentCaps?: Parameters<ReturnType<typeof notesApp>['gh']['createServer']>[0]['argumentCaps'],
) {
  const app = notesApp([{ id: 'n1', tenant: 't1', text: 'hello', secret: 'DECOY' }]);
  const server = app.gh.createServer(
    withGuards({
      name: 'notes',
      version: '1.0.0',
      tools: [app.findNotes, app.addNote],
      authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
      ...writeStores(),
      ...(argumentCaps ? { argumentCaps } : {}),
    }),
  );
  return { ...app, server };
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** Calls add_note and checks the refusal is a too-large invalid_arguments with nothing written. */
async function expectTooLarge(args: unknown, limit: string, app = build()) {
  const result = await app.server.callTool(connection(), 'add_note', args);
  expect(result.isError).toBe(true);
  expect(refusal(result).error).toMatchObject({ code: 'invalid_arguments', details: { limit } });
  expect(app.rows).toHaveLength(1);
  expect(app.services).toEqual([]);
  return result;
}

describe('argument caps (I14: bounded work before any schema runs)', () => {
  it('refuses a 10,000-deep object as invalid_arguments, never internal_error', async () => {
    await expectTooLarge({ text: 'x', deep: nested(10_000) }, 'depth');
  });

  it('refuses an object with more keys than allowed, without listing them all', async () => {
    const wide: Record<string, number> = { text: 1 };
    for (let i = 0; i < 340_000; i++) wide[`k${i}`] = i;
    const result = await expectTooLarge(wide, 'keysPerObject');
    expect(JSON.stringify(result).length).toBeLessThan(2_000);
  });

  it('refuses a nested object with 200,000 keys', async () => {
    const inner: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) inner[`k${i}`] = i;
    await expectTooLarge({ text: 'x', nested: { inner } }, 'keysPerObject');
  });

  it('refuses more values in all than allowed, spread over small arrays', async () => {
    const lists = Array.from({ length: 11 }, () => Array.from({ length: 1_000 }, () => 1));
    await expectTooLarge({ text: 'x', lists }, 'values');
  });

  it('refuses a key or a string longer than allowed, echoing at most 200 characters', async () => {
    const longKey = 'k'.repeat(10_000);
    const result = await expectTooLarge({ text: 'x', [longKey]: 1 }, 'keyLength');
    expect(JSON.stringify(result)).not.toContain('k'.repeat(201));
    await expectTooLarge({ text: 'x'.repeat(DEFAULT_ARGUMENT_CAPS.stringLength + 1) }, 'stringLength');
  });

  it('passes arguments at the caps through to the schema', async () => {
    const app = build();
    const result = await app.server.callTool(connection(), 'add_note', { text: 'milk' });
    expect(result.isError).toBeUndefined();
    expect(app.rows).toHaveLength(2);
  });

  it('echoes at most 200 characters of unknown argument names, and counts the rest', async () => {
    const app = build();
    const args: Record<string, string> = { text: 'x' };
    for (let i = 0; i < 50; i++) args[`unknown_${'z'.repeat(90)}_${i}`] = 'v';
    const result = await app.server.callTool(connection(), 'add_note', args);
    const error = refusal(result).error;
    expect(error.code).toBe('unknown_arguments');
    expect(error.message).toMatch(/and \d+ more\.$/);
    expect((error.details.unknown as string[]).join('').length).toBeLessThanOrEqual(200);
    expect(error.details).toMatchObject({
      unknown_count: 50,
      allowed: ['text', 'idempotency_key'],
    });
    expect(app.rows).toHaveLength(1);
  });

  it('takes caps from the server options and refuses bad ones at build time', async () => {
    await expectTooLarge({ text: 'x', deep: nested(4) }, 'depth', build({ depth: 4 }));
    expect(() => build({ depth: 0 })).toThrow(/argumentCaps\.depth must be a positive integer/);
    expect(() => build({ stringLength: 1.5 })).toThrow(/argumentCaps\.stringLength/);
  });
});
