import { ConfigurationError } from '@gatehousejs/core';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { definePresenter } from './definePresenter.js';
import { field } from './field.js';
import type { InputOf, OutputOf } from './fieldTypes.js';

const env = { now: new Date('2026-01-01T00:00:00Z') };
const context = { env, path: 'x' };

describe('field', () => {
  it('presents each leaf kind as is and refuses other types', () => {
    expect(field.string().present('a', context)).toBe('a');
    expect(field.number().present(1.5, context)).toBe(1.5);
    expect(field.integer().present(3, context)).toBe(3);
    expect(field.boolean().present(false, context)).toBe(false);
    expect(() => field.string().present(1, context)).toThrow('x: expected a string, got number.');
    expect(() => field.number().present(Number.NaN, context)).toThrow(/finite number/);
    expect(() => field.integer().present(1.5, context)).toThrow(/safe integer/);
    expect(() => field.boolean().present('true', context)).toThrow(/boolean/);
  });

  it('refuses a nested object where a string is listed, so a record never leaks whole', () => {
    const presenter = definePresenter({ fields: { customer: field.string() } });
    const record = { customer: { name: 'Ada', password_hash: 'DECOY' } } as unknown as { customer: string };
    expect(() => presenter.present(record, env)).toThrow('record.customer: expected a string, got object.');
  });

  it('presents null for a nullable field and refuses a missing non-nullable one', () => {
    expect(field.string().nullable().present(undefined, context)).toBeNull();
    expect(() => field.string().present(undefined, context)).toThrow(
      'x: the value is missing and the field is not nullable.',
    );
    expect(field.string().nullable().schema).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(field.enum(['a']).nullable().schema).toEqual({
      anyOf: [{ type: 'string', enum: ['a'] }, { type: 'null' }],
    });
  });

  it('writes every nullable field as anyOf with a null branch, never as a type array', () => {
    const presenter = definePresenter({
      fields: {
        name: field.string().nullable().describe('Full name.'),
        count: field.integer().nullable(),
        ratio: field.number().nullable(),
        active: field.boolean().nullable(),
        tags: field.list(field.string()).nullable(),
      },
    });
    const properties = (presenter.outputSchema as { properties: Record<string, { type?: unknown }> })
      .properties;
    for (const schema of Object.values(properties)) expect(Array.isArray(schema.type)).toBe(false);
    expect(properties.name).toEqual({
      anyOf: [{ type: 'string' }, { type: 'null' }],
      description: 'Full name.',
    });
    expect(properties.count).toEqual({ anyOf: [{ type: 'integer' }, { type: 'null' }] });
  });

  it('reads another record key with from() and keeps the output key', () => {
    const presenter = definePresenter({ fields: { created_at: field.string().from('createdAt') } });
    expect(presenter.present({ createdAt: '2026' }, env)).toEqual({ created_at: '2026' });
    expect(() => field.string().from('')).toThrow(ConfigurationError);
  });

  it('is immutable: modifiers return new fields', () => {
    const base = field.string();
    const personal = base.personal().oneTime().describe('Secret once');
    expect(base.meta).toEqual({ personal: false, oneTime: false, nullable: false, description: undefined });
    expect(personal.meta).toEqual({
      personal: true,
      oneTime: true,
      nullable: false,
      description: 'Secret once',
    });
    expect(personal.schema).toEqual({ type: 'string', description: 'Secret once' });
    expect(Object.isFrozen(base)).toBe(true);
  });

  it('accepts only the listed enum values', () => {
    const status = field.enum(['open', 'done']);
    expect(status.present('done', context)).toBe('done');
    expect(() => status.present('deleted', context)).toThrow('x: expected one of open, done, got string.');
    // @ts-expect-error an enum needs at least one value
    expect(() => field.enum([])).toThrow(ConfigurationError);
  });

  it('presents lists item by item with indexed paths', () => {
    const tags = field.list(field.string());
    expect(tags.present(['a', 'b'], context)).toEqual(['a', 'b']);
    expect(() => tags.present(['a', 2], context)).toThrow('x[1]: expected a string, got number.');
    expect(() => tags.present('a', context)).toThrow('x: expected an array, got string.');
    expect(() => field.list(field.string().oneTime())).toThrow(/mark the list one-time/);
  });

  it('refuses a nested object without fields', () => {
    expect(() => field.object({})).toThrow(/field\.object: the field list is empty/);
  });

  it('carries input and output types', () => {
    expectTypeOf<InputOf<ReturnType<typeof field.integer>>>().toEqualTypeOf<number>();
    const nullableList = field.list(field.boolean()).nullable();
    expectTypeOf<InputOf<typeof nullableList>>().toEqualTypeOf<readonly boolean[] | null | undefined>();
    expectTypeOf<OutputOf<typeof nullableList>>().toEqualTypeOf<readonly boolean[] | null>();
  });
});

describe('field.object versioned by revision (I12)', () => {
  const list = definePresenter({
    fields: {
      items: field.list(
        field.object({ id: field.string(), qty: field.integer() }, { versioned: { revision: 'rev' } }),
      ),
    },
  });

  it('stamps each item with a version that follows its revision, not only its content', () => {
    const items = [
      { id: 'i1', qty: 2, rev: 1 },
      { id: 'i1', qty: 3, rev: 2 },
      { id: 'i1', qty: 2, rev: 3 },
    ];
    const presented = list.present({ items }, env).items;
    expect(new Set(presented.map((item) => item.version)).size).toBe(3);
    expect(presented[0]).toEqual({ id: 'i1', qty: 2, version: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expectTypeOf(presented[0]?.version).toEqualTypeOf<string | undefined>();
  });

  it('names the item path when an item lacks its revision, and refuses a malformed option', () => {
    const items = [{ id: 'i1', qty: 2 }] as unknown as { id: string; qty: number; rev: number }[];
    expect(() => list.present({ items }, env)).toThrow(/^record\.items\[0\]\.rev: expected the revision/);
    expect(() =>
      // @ts-expect-error revision names a record key
      field.object({ id: field.string() }, { versioned: { revision: 7 } }),
    ).toThrow(ConfigurationError);
  });
});

describe('field.string hidden characters (I16)', () => {
  const presenter = definePresenter({ fields: { name: field.string() } });
  const present = (name: string) => presenter.present({ name }, { now: new Date(0) }).name;

  it('drops controls, bidi overrides, zero-width and tag characters from a presented string', () => {
    expect(present('Ada\u202E\u200B\u0007\u{E0041} Love\u2066lace\uFEFF\u00AD')).toBe('Ada Lovelace');
  });

  it('keeps the joiners that Persian and emoji need, and tab and newline', () => {
    expect(present('می\u200Cخواهم 👩\u200D💻\tline\nnext')).toBe('می\u200Cخواهم 👩\u200D💻\tline\nnext');
  });

  it('versions the stored value, not the cleaned one', () => {
    const versioned = definePresenter({
      versioned: true,
      fields: { id: field.string(), name: field.string() },
    });
    const a = versioned.present({ id: 'p1', name: 'Ada' }, { now: new Date(0) });
    const b = versioned.present({ id: 'p1', name: 'Ada\u200B' }, { now: new Date(0) });
    expect(a.name).toBe(b.name);
    expect(a.version).not.toBe(b.version);
  });
});
