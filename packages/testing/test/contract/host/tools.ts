import type { Gatehouse, Presenter } from '@gatehousejs/core';
import { batchCountGuard, duplicateGuard, versionGuard } from '@gatehousejs/guards';
import { timeInput } from '@gatehousejs/presenters';
import { Temporal } from 'temporal-polyfill';
import { z } from 'zod';
import type { DeskData, NoteRow, NoteService, Right } from './domain.js';
import type { Flaws } from './flaws.js';
import { notifyWatchersTool } from './outward.js';
import { notePresenter, objectSchema, reminderPresenter, servedPresenter } from './presenters.js';

export interface Services {
  readonly notes: NoteService;
  readonly mailer: { send(text: string): void };
}

const lenientTime = z
  .object({ local: z.string(), zone: z.string() })
  .strict()
  .transform((v) => Temporal.PlainDateTime.from(v.local).toZonedDateTime(v.zone));

/** Lookups the guards make in the caller's tenant (synchronous columns, never a log). */
function lookups(data: DeskData) {
  const live = (tenantId: string) => data.notes.filter((n) => n.tenantId === tenantId && !n.archived);
  return {
    byId: (tenantId: string, id: string) => live(tenantId).find((n) => n.id === id),
    byTitle: (tenantId: string, title: string) => live(tenantId).find((n) => n.title === title),
    titled: (tenantId: string, text: string) => live(tenantId).filter((n) => n.title.includes(text)),
  };
}

/** The desk's tools: two reads, four silent writes and one outward tool. */
export function deskTools(gh: Gatehouse<Right, Services>, flaws: Flaws, data: DeskData) {
  const note = servedPresenter(flaws);
  const versions = notePresenter(flaws);
  const find = lookups(data);
  const notes: Presenter<NoteRow[]> = {
    outputSchema: objectSchema({ notes: { type: 'array', items: note.outputSchema as never } }, ['notes']),
    present: (rows, env) => ({ notes: rows.map((n) => note.present(n, env)) }),
  };
  const version = versionGuard<{ id: string }, Services>({
    readTool: 'get_note',
    current: async ({ input, connection }) => {
      const found = find.byId(connection.tenantId, input.id);
      return (
        found && { version: versions.versionOf(found), object: versions.present(found, { now: new Date() }) }
      );
    },
  });
  const batch = batchCountGuard<{ filter?: { title_contains: string } }, Services>({
    match: async ({ input, connection }) => {
      const found = find.titled(connection.tenantId, input.filter?.title_contains ?? '');
      return { total: found.length, sample: found.map((n) => ({ id: n.id, title: n.title })) };
    },
  });
  const duplicate = duplicateGuard<{ title: string; body: string }, Services>({
    key: (input) => ({ title: input.title }),
    find: ({ input, connection }) =>
      flaws.staleDuplicateLookup ? undefined : find.byTitle(connection.tenantId, input.title),
    updateTool: 'update_note',
    noun: 'note',
  });
  return [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes of this workspace whose title contains the query.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({ query: z.string().max(100).optional() }),
      presenter: notes,
      run: ({ input, services }) => services.notes.find(input.query),
    }),
    gh.defineTool({
      name: 'get_note',
      description: 'Returns one note with its version.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({ id: z.string().min(1).max(100) }),
      presenter: note,
      run: ({ input, services }) => services.notes.get(input.id),
    }),
    gh.defineTool({
      name: 'create_note',
      description: 'Creates a note; titles are unique in a workspace.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({ title: z.string().min(1).max(120), body: z.string().max(2000) }),
      presenter: note,
      guards: [duplicate],
      run: ({ input, services }) => services.notes.create(input.title, input.body),
    }),
    gh.defineTool({
      name: 'update_note',
      description: 'Replaces the body of a note, given the version you read.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({
        id: z.string().min(1).max(100),
        body: z.string().max(2000),
        version: z.string().min(1).max(100),
      }),
      presenter: note,
      guards: flaws.noVersionGuard ? [] : [version],
      run: ({ input, services }) => services.notes.update(input.id, input.body),
    }),
    gh.defineTool({
      name: 'archive_notes',
      description: 'Archives notes by id, or by a title filter with the count you expect it to match.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({
        ids: z.array(z.string().min(1).max(50)).max(50).optional(),
        filter: z.object({ title_contains: z.string().min(1).max(100) }).optional(),
        expected_count: z.number().int().min(0).max(50).optional(),
      }),
      presenter: {
        outputSchema: objectSchema({ archived: { type: 'array', items: { type: 'string' } } }, ['archived']),
        present: (ids: string[]) => ({ archived: ids }),
      },
      guards: flaws.noBatchGuard ? [] : [batch],
      run: ({ input, connection, services }) =>
        services.notes.archive(
          input.ids ??
            (input.filter
              ? find.titled(connection.tenantId, input.filter.title_contains).map((n) => n.id)
              : []),
        ),
    }),
    gh.defineTool({
      name: 'schedule_reminder',
      description: 'Schedules a reminder about a note at a local time in a zone.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({
        note_id: z.string().min(1).max(100),
        at: flaws.lenientTime ? lenientTime : timeInput(),
      }),
      presenter: reminderPresenter,
      run: ({ input, services }) => services.notes.schedule(input.note_id, input.at),
    }),
    notifyWatchersTool(gh, flaws),
  ];
}
