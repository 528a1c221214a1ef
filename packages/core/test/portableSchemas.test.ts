import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { withGuards } from '../../../test/withGuards.js';
import { PREVIEW_OUTPUT_SCHEMA, toolOutputSchema } from '../src/contract/envelope.js';
import type { JsonSchema } from '../src/index.js';
import { presentUtc } from '../src/time.js';
import { connection, notesApp, writeStores } from './fixtures.js';

/**
 * Paths of the spellings a strict schema linter flags: a `type` array
 * (`['string', 'null']`) and a property schema with no keyword at all.
 */
function unportable(schema: unknown, path = '#'): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  if (Array.isArray(schema)) return schema.flatMap((item, i) => unportable(item, `${path}/${i}`));
  const found: string[] = [];
  const record = schema as Record<string, unknown>;
  if (Array.isArray(record.type)) found.push(`${path}/type`);
  const properties = record.properties as Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(properties ?? {})) {
    if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) {
      found.push(`${path}/properties/${key}`);
    }
  }
  for (const [key, value] of Object.entries(record)) found.push(...unportable(value, `${path}/${key}`));
  return found;
}

const preview = (expiresAt: unknown) => ({
  status: 'PREVIEW',
  confirm_token: 'ct_1',
  confirm_summary: 'Send one e-mail to Ada.',
  expires_at: expiresAt,
});

describe('PREVIEW_OUTPUT_SCHEMA', () => {
  const validate = new Ajv2020({ strict: false }).compile(PREVIEW_OUTPUT_SCHEMA);

  it('accepts a preview whose expires_at is a presented UTC time', () => {
    const expiresAt = presentUtc(Date.parse('2026-03-30T07:40:00Z'), new Date('2026-03-30T07:30:00Z'));
    expect(validate(preview(expiresAt))).toBe(true);
  });

  it('refuses a preview whose expires_at is a bare string or a partial time', () => {
    expect(validate(preview('in 10 minutes'))).toBe(false);
    expect(validate(preview({ utc: '2026-03-30T07:40:00Z' }))).toBe(false);
  });

  it('leaves no property unconstrained in the preview branch of an outward tool', () => {
    expect(unportable(toolOutputSchema({ type: 'object' }, true))).toEqual([]);
  });
});

describe('list_recent_changes', () => {
  it('advertises its nullable note and cursor as anyOf branches, not type arrays', async () => {
    const { gh, findNotes, addNote } = notesApp();
    const server = gh.createServer(
      withGuards({
        name: 'notes',
        version: '1.0.0',
        tools: [findNotes, addNote],
        authenticate: async () => ({ ok: false, status: 401, reason: 'no' }),
        ...writeStores(),
      }),
    );
    const listing = (await server.listTools(connection())).find((t) => t.name === 'list_recent_changes');
    if (!listing) throw new Error('list_recent_changes is not listed');
    expect(unportable(listing.outputSchema)).toEqual([]);
    const [success] = listing.outputSchema.oneOf as { properties: { result: JsonSchema } }[];
    const result = success?.properties.result as { properties: Record<string, unknown> };
    expect(result.properties.next_before).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });
});
