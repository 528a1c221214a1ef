import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGatehouse, jsonSchema, ToolError } from '../src/index.js';
import { listPresenter } from './fixtures.js';

const gh = createGatehouse({ rights: ['r'], services: () => ({}) });
const presenter = listPresenter<{ ok: boolean }>(['ok']);
const toolWith = (input: Parameters<typeof gh.defineTool>[0]['input']) =>
  gh.defineTool({
    name: 'probe',
    description: 'Probes input handling.',
    effect: 'read',
    input,
    presenter,
    run: () => ({ ok: true }),
  });

const rejection = async (promise: Promise<unknown>): Promise<ToolError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!ToolError.is(error)) throw new Error(`expected a ToolError, got ${String(error)}`);
  return error;
};

describe('compileInput (through defineTool)', () => {
  const zodTool = toolWith(
    z.object({ query: z.string(), filter: z.object({ city: z.string() }).optional() }),
  );
  const rawTool = toolWith(
    jsonSchema<{ query: string; limit: number }>({
      type: 'object',
      properties: { query: { type: 'string', minLength: 1 }, limit: { type: 'integer', default: 10 } },
      required: ['query'],
    }),
  );

  it('refuses unknown top-level fields with the allowed list (I14)', async () => {
    for (const tool of [zodTool, rawTool]) {
      const error = await rejection(tool.runtime.input.parse({ query: 'x', workspace_id: 'w2' }));
      expect(error.code).toBe('unknown_arguments');
      expect(error.details).toMatchObject({ unknown: ['workspace_id'] });
      expect(error.fix).toContain('query');
    }
  });

  it('refuses unknown nested fields, naming the path and what is allowed there', async () => {
    const error = await rejection(
      zodTool.runtime.input.parse({ query: 'x', filter: { city: 'Oslo', tenant: 't2' } }),
    );
    expect(error.details).toEqual({ unknown: ['filter.tenant'], path: 'filter.tenant', allowed: ['city'] });
  });

  it('reports schema violations without echoing the values', async () => {
    const error = await rejection(rawTool.runtime.input.parse({ query: '', limit: 'SECRET-VALUE' }));
    expect(error.code).toBe('invalid_arguments');
    expect(JSON.stringify(error.details)).not.toContain('SECRET-VALUE');
    expect((error.details.issues as { path: string }[]).map((i) => i.path).sort()).toEqual([
      'limit',
      'query',
    ]);
  });

  it('normalizes: zod output and JSON Schema defaults reach run', async () => {
    await expect(rawTool.runtime.input.parse({ query: 'x' })).resolves.toEqual({ query: 'x', limit: 10 });
    await expect(zodTool.runtime.input.parse({ query: 'x' })).resolves.toEqual({ query: 'x' });
  });

  it('treats missing arguments as an empty object and refuses non-objects', async () => {
    const optional = toolWith(z.object({ q: z.string().optional() }));
    await expect(optional.runtime.input.parse(undefined)).resolves.toEqual({});
    expect((await rejection(optional.runtime.input.parse([1, 2]))).code).toBe('invalid_arguments');
    expect((await rejection(rawTool.runtime.input.parse('text'))).code).toBe('invalid_arguments');
  });

  it('does not mutate the caller’s arguments when applying defaults', async () => {
    const args = { query: 'x' };
    await rawTool.runtime.input.parse(args);
    expect(args).toEqual({ query: 'x' });
  });
});
