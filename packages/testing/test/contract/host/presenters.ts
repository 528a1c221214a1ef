import type { JsonObject, Presenter } from '@gatehousejs/core';
import { definePresenter, field } from '@gatehousejs/presenters';
import type { NoteRow } from './domain.js';
import type { Flaws } from './flaws.js';

/** The note presenter: an explicit field list, versioned (I12, I17). */
export function notePresenter(flaws: Flaws) {
  return definePresenter({
    name: 'note',
    versioned: true,
    fields: {
      id: field.string(),
      title: field.string(),
      body: flaws.rawThirdPartyText ? field.string() : field.untrustedText({ maxLength: 500 }),
      created_by: field.string().from('createdBy'),
    },
  });
}

/** The presenter a host uses: the good one, or one that serializes the whole record and says so in its schema. */
export function servedPresenter(flaws: Flaws): Presenter<NoteRow> {
  const good = notePresenter(flaws) as unknown as Presenter<NoteRow>;
  if (!flaws.leaksSecretColumn) return good;
  const schema = good.outputSchema as { properties: Record<string, unknown> };
  return {
    // a schema loose enough for the leak: core's result validation cannot catch it, the kit must
    outputSchema: { ...schema, properties: { ...schema.properties, share_secret: { type: 'string' } } },
    present: (n, env): JsonObject => ({ ...good.present(n, env), share_secret: n.shareSecret }),
  };
}

export const reminderPresenter = definePresenter({
  name: 'reminder',
  fields: { id: field.string(), note_id: field.string().from('noteId'), at: field.instant() },
});

/** A JSON Schema object with exactly these properties. */
export const objectSchema = (properties: JsonObject, required: string[]) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
