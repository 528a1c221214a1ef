import { ConfigurationError, type JsonObject, type Presenter } from '@gatehousejs/core';
import { Temporal } from 'temporal-polyfill';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { definePresenter } from './definePresenter.js';
import { field } from './field.js';
import type { UntrustedText } from './untrustedText.js';

const env = { now: new Date('2026-03-27T09:30:00Z') };

const customerFields = {
  id: field.string(),
  name: field.string().personal(),
  email: field.string().personal().nullable(),
};

const bookingPresenter = definePresenter({
  name: 'booking',
  versioned: true,
  fields: {
    id: field.string(),
    status: field.enum(['open', 'done']),
    starts_at: field.instant({ zone: 'Europe/Berlin' }).from('startsAt'),
    price: field.money(),
    customer: field.object(customerFields, { versioned: true }),
    attendees: field.list(field.object({ name: field.string().personal() })),
    note: field.untrustedText({ maxLength: 40 }).nullable(),
    api_key: field.string().oneTime().nullable().from('apiKey'),
  },
});

type Booking = Parameters<typeof bookingPresenter.present>[0];

function booking() {
  return {
    id: 'bk_1',
    status: 'open' as const,
    startsAt: Temporal.Instant.from('2026-03-30T07:30:00Z'),
    price: { minor: 1230, currency: 'EUR' },
    customer: {
      id: 'cu_1',
      name: 'Ada',
      email: 'ada@example.com',
      password_hash: 'DECOY-SECRET-customer-password',
      reset_token: 'DECOY-SECRET-customer-reset',
    },
    attendees: [{ name: 'Bo', session_token: 'DECOY-SECRET-attendee-session' }],
    note: 'Please ring twice.',
    apiKey: 'gh_live_once',
    password_hash: 'DECOY-SECRET-password-hash',
    totp_seed: 'DECOY-SECRET-totp-seed',
    internal_notes: 'DECOY-SECRET-internal-notes',
  };
}

describe('definePresenter', () => {
  it('returns only the listed fields, whatever else the record holds', () => {
    const presented = bookingPresenter.present(booking(), env);
    expect(Object.keys(presented)).toEqual([
      'id',
      'status',
      'starts_at',
      'price',
      'customer',
      'attendees',
      'note',
      'api_key',
      'version',
    ]);
    expect(Object.keys(presented.customer)).toEqual(['id', 'name', 'email', 'version']);
    expect(presented.attendees).toEqual([{ name: 'Bo' }]);
  });

  it('lets no decoy secret column reach any presented or replayed result', () => {
    const presented = bookingPresenter.present(booking(), env);
    const texts = [JSON.stringify(presented), JSON.stringify(bookingPresenter.forReplay(presented))];
    for (const text of texts) expect(text).not.toMatch(/DECOY/);
    expect(JSON.stringify(presented)).toContain('gh_live_once');
  });

  it('stamps version as 16 hex characters of the presented state', () => {
    const presented = bookingPresenter.present(booking(), env);
    expect(presented.version).toMatch(/^[0-9a-f]{16}$/);
    expect(presented.version).toBe(bookingPresenter.versionOf(booking()));
    expect(presented.customer.version).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes version when a listed field changes', () => {
    const changed = { ...booking(), price: { minor: 1231, currency: 'EUR' } };
    expect(bookingPresenter.versionOf(changed)).not.toBe(bookingPresenter.versionOf(booking()));
    const renamed = { ...booking(), customer: { ...booking().customer, name: 'Ada L.' } };
    expect(bookingPresenter.present(renamed, env).customer.version).not.toBe(
      bookingPresenter.present(booking(), env).customer.version,
    );
  });

  it('keeps version when an unlisted field, the one-time field or the clock changes', () => {
    const before = bookingPresenter.present(booking(), env).version;
    const unlisted = { ...booking(), password_hash: 'other', internal_notes: 'other' };
    expect(bookingPresenter.present(unlisted, env).version).toBe(before);
    expect(bookingPresenter.present({ ...booking(), apiKey: null }, env).version).toBe(before);
    const later = { now: new Date('2026-03-29T09:30:00Z') };
    const presentedLater = bookingPresenter.present(booking(), later);
    expect(presentedLater.starts_at.from_now).not.toBe(
      bookingPresenter.present(booking(), env).starts_at.from_now,
    );
    expect(presentedLater.version).toBe(before);
  });

  it('removes one-time fields for replay and lists them under withheld', () => {
    const presented = bookingPresenter.present(booking(), env);
    const replayed = bookingPresenter.forReplay(presented);
    expect(replayed).not.toHaveProperty('api_key');
    expect(replayed.withheld).toEqual(['api_key']);
    expect({ ...replayed, withheld: undefined, api_key: presented.api_key }).toEqual({
      ...presented,
      withheld: undefined,
    });
    expect(bookingPresenter.oneTimeFields).toEqual(['api_key']);
  });

  it('withholds nested one-time fields by path, inside lists too', () => {
    const keysPresenter = definePresenter({
      fields: { keys: field.list(field.object({ id: field.string(), secret: field.string().oneTime() })) },
    });
    const presented = keysPresenter.present(
      {
        keys: [
          { id: 'k1', secret: 's1' },
          { id: 'k2', secret: 's2' },
        ],
      },
      env,
    );
    expect(keysPresenter.forReplay(presented)).toEqual({
      keys: [{ id: 'k1' }, { id: 'k2' }],
      withheld: ['keys[].secret'],
    });
  });

  it('returns the presented object unchanged for replay when it has no one-time field', () => {
    const plain = definePresenter({ fields: { id: field.string() } });
    expect(plain.forReplay({ id: 'x' })).toEqual({ id: 'x' });
    expect(plain.outputSchema).toEqual({
      type: 'object',
      properties: { id: { type: 'string' } },
      required: ['id'],
      additionalProperties: false,
    });
  });

  it('lists personal fields by path for contract tests', () => {
    expect(bookingPresenter.personalFields).toEqual(['customer.name', 'customer.email', 'attendees[].name']);
  });

  it('describes exactly its output in outputSchema, closed at every level', () => {
    const schema = bookingPresenter.outputSchema as {
      properties: Record<
        string,
        { additionalProperties?: boolean; items?: { additionalProperties?: boolean } }
      >;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties)).toEqual([
      'id',
      'status',
      'starts_at',
      'price',
      'customer',
      'attendees',
      'note',
      'api_key',
      'version',
      'withheld',
    ]);
    expect(schema.required).not.toContain('api_key');
    expect(schema.required).toContain('version');
    expect(schema.properties.customer?.additionalProperties).toBe(false);
    expect(schema.properties.attendees?.items?.additionalProperties).toBe(false);
  });

  it('refuses an empty field list, a non-field entry and reserved names', () => {
    expect(() => definePresenter({ fields: {} })).toThrow(ConfigurationError);
    expect(() => definePresenter({ fields: {} })).toThrow(/field list is empty/);
    // @ts-expect-error a field list holds fields only
    expect(() => definePresenter({ fields: { id: true } })).toThrow(/"id" is not a field/);
    expect(() => definePresenter({ versioned: true, fields: { version: field.string() } })).toThrow(
      /"version"/,
    );
    expect(() =>
      definePresenter({ fields: { withheld: field.string(), key: field.string().oneTime() } }),
    ).toThrow(/"withheld"/);
    expect(() => definePresenter({ fields: { ['__proto__']: field.string() } })).toThrow(
      /"__proto__" cannot be/,
    );
  });

  it('fails with the path, never the value, when the record holds the wrong type', () => {
    const value = { ...booking(), status: 'DECOY-SECRET-status' } as unknown as Booking;
    expect(() => bookingPresenter.present(value, env)).toThrow(TypeError);
    expect(() => bookingPresenter.present(value, env)).toThrow(
      /^booking\.status: expected one of open, done/,
    );
    expect(() => bookingPresenter.present(value, env)).not.toThrow(/DECOY/);
  });

  it('infers the record type and the output type from the field list', () => {
    expectTypeOf<Booking>().toEqualTypeOf<{
      readonly id: string;
      readonly status: 'open' | 'done';
      readonly startsAt: Temporal.Instant | Temporal.ZonedDateTime | Date;
      readonly price: { readonly minor: number; readonly currency: string };
      readonly customer: {
        readonly id: string;
        readonly name: string;
        readonly email?: string | null | undefined;
      };
      readonly attendees: readonly { readonly name: string }[];
      readonly note?: string | null | undefined;
      readonly apiKey?: string | null | undefined;
    }>();
    const presented = bookingPresenter.present(booking(), env);
    expectTypeOf(presented.status).toEqualTypeOf<'open' | 'done'>();
    expectTypeOf(presented.note).toEqualTypeOf<UntrustedText | null>();
    expectTypeOf(presented.version).toEqualTypeOf<string>();
    expectTypeOf(presented.customer.email).toEqualTypeOf<string | null>();
    expectTypeOf(presented.attendees).toEqualTypeOf<readonly { readonly name: string }[]>();
    expectTypeOf(bookingPresenter).toExtend<Presenter<Booking>>();
    expectTypeOf(presented).toExtend<JsonObject>();
  });

  it('has no version in the output type when not versioned, and refuses a missing field at compile time', () => {
    const plain = definePresenter({ fields: { id: field.string() } });
    expectTypeOf(plain.present({ id: 'x' }, env)).toEqualTypeOf<{ readonly id: string }>();
    // @ts-expect-error the record must hold every non-nullable listed field
    expect(() => plain.present({}, env)).toThrow(/record\.id: the value is missing/);
  });
});

describe('definePresenter versioned by revision (I12)', () => {
  const noteFields = { id: field.string(), text: field.string() };
  const notePresenter = definePresenter({
    name: 'note',
    versioned: { revision: 'revision' },
    fields: noteFields,
  });
  const contentOnly = definePresenter({ name: 'note', versioned: true, fields: noteFields });
  const a = { id: 'n1', text: 'Call Ada', revision: 1 };
  const b = { id: 'n1', text: 'Call Ada at noon', revision: 2 };
  const aAgain = { id: 'n1', text: 'Call Ada', revision: 3 };

  it('gives three distinct versions for A, B and A again', () => {
    const seen = [a, b, aAgain].map((note) => notePresenter.versionOf(note));
    expect(new Set(seen).size).toBe(3);
    for (const version of seen) expect(version).toMatch(/^[0-9a-f]{16}$/);
    expect(notePresenter.present(aAgain, env).version).toBe(seen[2]);
  });

  it('repeats a content-only version after A→B→A, which the revision prevents', () => {
    expect(contentOnly.versionOf(aAgain)).toBe(contentOnly.versionOf(a));
    expect(notePresenter.versionOf(aAgain)).not.toBe(notePresenter.versionOf(a));
  });

  it('changes version when only the revision changes, and when only the content changes', () => {
    const base = notePresenter.versionOf(a);
    expect(notePresenter.versionOf({ ...a, revision: 2 })).not.toBe(base);
    expect(notePresenter.versionOf({ ...a, text: 'Call Ada!' })).not.toBe(base);
    expect(notePresenter.versionOf({ ...a })).toBe(base);
    expect(notePresenter.versionOf(a)).not.toBe(contentOnly.versionOf(a));
  });

  it('keeps the revision out of the output and says so in the schema', () => {
    const presented = notePresenter.present(a, env);
    expect(Object.keys(presented)).toEqual(['id', 'text', 'version']);
    expect(notePresenter.revisionKey).toBe('revision');
    expect(contentOnly.revisionKey).toBeUndefined();
    const properties = notePresenter.outputSchema.properties as Record<string, { description?: string }>;
    expect(properties.version?.description).toMatch(/revision/);
    expect(notePresenter.outputSchema.required).toContain('version');
  });

  it('fails with the path, never the value, when the revision is missing or not a counter', () => {
    const bad = [undefined, -1, 1.5, '7', Number.MAX_SAFE_INTEGER + 1];
    for (const revision of bad) {
      const record = { ...a, revision } as unknown as typeof a;
      expect(() => notePresenter.present(record, env)).toThrow(TypeError);
      expect(() => notePresenter.versionOf(record)).toThrow(/^note\.revision: expected the revision/);
    }
  });

  it('refuses a malformed versioned option', () => {
    const bad = [{ revision: '' }, { revision: 1 }, {}, { revision: 'revision', extra: true }, 'yes'];
    for (const versioned of bad) {
      expect(() =>
        // @ts-expect-error versioned is a boolean or { revision: key }
        definePresenter({ versioned, fields: noteFields }),
      ).toThrow(ConfigurationError);
    }
    expect(() =>
      definePresenter({ versioned: { revision: 'revision' }, fields: { version: field.string() } }),
    ).toThrow(/"version"/);
  });

  it('requires the revision key in the record type and stamps version in the output type', () => {
    type Note = Parameters<typeof notePresenter.present>[0];
    expectTypeOf<Note>().toEqualTypeOf<{
      readonly id: string;
      readonly text: string;
      readonly revision: number;
    }>();
    expectTypeOf(notePresenter.present(a, env)).toEqualTypeOf<{
      readonly id: string;
      readonly text: string;
      readonly version: string;
    }>();
    // @ts-expect-error a presenter versioned by revision needs the revision in the record
    expect(() => notePresenter.versionOf({ id: 'n1', text: 'Call Ada' })).toThrow(TypeError);
  });
});
