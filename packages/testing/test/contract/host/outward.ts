import type { Gatehouse, Prepared } from '@gatehousejs/core';
import { untrustedText } from '@gatehousejs/presenters';
import { z } from 'zod';
import type { Right } from './domain.js';
import type { Flaws } from './flaws.js';
import { objectSchema } from './presenters.js';
import type { Services } from './tools.js';

const input = z.object({ note_id: z.string().min(1).max(100), message: z.string().min(1).max(300) });
type Input = z.infer<typeof input>;

/** What would go out: the note (its customer-written body wrapped, I16) and the staff message. */
function prepare(services: Services, args: Input): Prepared {
  const note = services.notes.get(args.note_id);
  return {
    content: {
      note_id: note.id,
      title: note.title,
      body: untrustedText(note.body, { maxLength: 200 }),
      message: args.message,
    },
    summary: `Mail the watchers of ${note.id} (${note.title.slice(0, 40)}): ${args.message.slice(0, 80)}`,
  };
}

const presenter = {
  outputSchema: objectSchema({ sent: { type: 'integer' } }, ['sent']),
  present: (sent: number) => ({ sent }),
};

/** notify_watchers: mails a note's watchers; outward, so it takes two steps (I9). A flaw makes it a write. */
export function notifyWatchersTool(gh: Gatehouse<Right, Services>, flaws: Flaws) {
  const base = {
    name: 'notify_watchers',
    title: 'Mail the watchers of a note',
    description: 'Mails the people watching a note a short message about it.',
    requires: ['notes.write'] as Right[],
    input,
    presenter,
    run: ({ input: args, services }: { input: Input; services: Services }) => {
      const content = prepare(services, args).content;
      services.mailer.send(JSON.stringify(content));
      return 1;
    },
  };
  if (flaws.outwardAsWrite) return gh.defineTool({ ...base, effect: 'write' });
  return gh.defineTool({
    ...base,
    effect: 'notify',
    prepare: ({ input: args, services }) => prepare(services, args),
  });
}
