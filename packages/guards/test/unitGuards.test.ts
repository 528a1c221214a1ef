import {
  ALLOW,
  type Authenticate,
  type Connection,
  createGatehouse,
  defineGuard,
  deny,
  MemoryAuditStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  type UnitOfWork,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';

/**
 * What a unit guard does in a test: let the call go on, mail, mail and swallow
 * the refusal, write and refuse, or write and return no decision at all.
 */
type Mode = 'pass' | 'mail' | 'mail-swallowed' | 'write-then-refuse' | 'write-then-no-decision';

/** The services of one call: the notes, written into the unit of work's staging, and the mailer port. */
interface Services {
  readonly unit: string[] | undefined;
  readonly notes: { add(text: string): void };
  readonly mailer: { send(to: string, text: string): void };
}

const connection: Connection<'notes.write'> = {
  connectionId: 'c1',
  tenantId: 't1',
  creatorId: 'p1',
  clientName: 'x',
  channel: 'mcp',
  rights: new Set(['notes.write']),
};
const authenticate: Authenticate<'notes.write'> = async () => ({ ok: false, status: 401, reason: 'unused' });

/**
 * A notes server whose unit of work stages writes and commits them only when
 * the unit resolves (a transaction in memory), with one write and one notify
 * tool guarded by the same unit guard.
 */
function notesDesk() {
  const committed: string[] = [];
  const mails: string[] = [];
  const seen: { guard: Services[]; run: Services[] } = { guard: [], run: [] };
  let mode: Mode = 'pass';
  const internalErrors: unknown[] = [];
  const unitOfWork: UnitOfWork<string[]> = {
    atomic: true,
    async run(work) {
      const staged: string[] = [];
      const result = await work(staged);
      committed.push(...staged);
      return result;
    },
  };
  const gh = createGatehouse({
    rights: ['notes.write'] as const,
    ports: { mailer: { effect: 'notify', port: { send: (to: string) => void mails.push(to) } } },
    services: (_c, ports, unit): Services => {
      const staging = unit as string[] | undefined;
      return {
        unit: staging,
        notes: { add: (text) => (staging ?? committed).push(text) },
        mailer: ports.mailer,
      };
    },
  });
  const watch = defineGuard<{ text: string }, Services>({
    kind: 'unit',
    name: 'watch',
    check({ services, input }) {
      seen.guard.push(services);
      if (mode === 'mail') services.mailer.send('boss@example.com', input.text);
      if (mode === 'mail-swallowed') {
        try {
          services.mailer.send('boss@example.com', input.text);
        } catch {
          // a guard that swallows the refusal still fails the call
        }
      }
      if (mode === 'write-then-refuse') {
        services.notes.add(`guard: ${input.text}`);
        return deny({ code: 'conflict', message: 'The note is locked.', fix: 'Retry later.' });
      }
      if (mode === 'write-then-no-decision') {
        services.notes.add(`guard: ${input.text}`);
        // a plain-JavaScript guard that forgets to answer: not an allow, a defect
        return undefined as never;
      }
      return ALLOW;
    },
  });
  const presenter = {
    outputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    present: (text: string) => ({ text }),
  };
  const tools = [
    gh.defineTool({
      name: 'add_note',
      description: 'Adds a note.',
      effect: 'write',
      input: z.object({ text: z.string() }),
      presenter,
      guards: [watch],
      run: ({ input, services }) => {
        seen.run.push(services);
        services.notes.add(input.text);
        return input.text;
      },
    }),
    gh.defineTool({
      name: 'mail_note',
      description: 'Mails a note to its owner.',
      effect: 'notify',
      input: z.object({ text: z.string() }),
      presenter,
      guards: [watch],
      prepare: ({ input }) => ({ content: { text: input.text }, summary: `mail "${input.text}"` }),
      run: ({ input, services }) => {
        services.mailer.send('owner@example.com', input.text);
        return input.text;
      },
    }),
  ];
  const audit = new MemoryAuditStore();
  const pending = new MemoryPendingActionStore();
  const server = gh.createServer(
    withGuards({
      name: 'notes',
      version: '1',
      tools,
      authenticate,
      audit,
      confirm: { store: pending },
      replay: { store: new MemoryReplayStore() },
      unitOfWork,
      onError: (error) => void internalErrors.push(error),
    }),
  );
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await server.callTool(connection, tool, args)).structuredContent as {
      status: string;
      replayed?: boolean;
      error?: { code: string; details: Record<string, unknown> };
    };
  return {
    call,
    committed,
    mails,
    seen,
    audit,
    pending,
    internalErrors,
    setMode: (next: Mode) => {
      mode = next;
    },
  };
}

// Before a5d4439 a guard was `handle(call, next)` and received no services: a
// guard that read the product built its own from the host's dependencies, with
// ports the host had to close by hand (the booking example's `lookupsOf`), so
// nothing stopped a guard from sending mail, nothing recorded it, and its reads
// ran outside the write's transaction unless a transaction guard was ordered
// before it. A unit guard now gets the call's own services, built once from the
// unit of work's handle, with every outward port closed.
describe('unit guards', () => {
  it('see the services of the call, built from the unit of work’s handle, the same ones run receives', async () => {
    const desk = notesDesk();
    expect(await desk.call('add_note', { text: 'boiler' })).toMatchObject({ status: 'ok' });
    expect(desk.seen.guard).toHaveLength(1);
    expect(desk.seen.guard[0]).toBe(desk.seen.run[0]);
    expect(desk.seen.guard[0]!.unit).toEqual(['boiler']);
    expect(desk.committed).toEqual(['boiler']);
  });

  it('refuse with effect_violation when they reach an outward port, even if they swallow the error; nothing is sent or written', async () => {
    const desk = notesDesk();
    for (const mode of ['mail', 'mail-swallowed'] as const) {
      desk.setMode(mode);
      const refused = await desk.call('add_note', { text: mode });
      expect(refused.error, mode).toMatchObject({
        code: 'effect_violation',
        details: { port: 'mailer', phase: 'check' },
      });
    }
    expect(desk.mails).toEqual([]);
    expect(desk.seen.run).toEqual([]);
    expect(desk.committed).toEqual([]);
    expect(desk.audit.rows.map((r) => [r.action, r.outcome])).toEqual([
      ['add_note', 'violation'],
      ['add_note', 'violation'],
    ]);
  });

  it('keep outward ports closed while a preview is checked: no mail, no pending action', async () => {
    const desk = notesDesk();
    desk.setMode('mail');
    const refused = await desk.call('mail_note', { text: 'hello' });
    expect(refused.error).toMatchObject({ code: 'effect_violation', details: { port: 'mailer' } });
    expect(desk.mails).toEqual([]);
    expect(desk.pending.size).toBe(0);
  });

  it('write nothing when they refuse: the unit of work rolls back, no audit row, and the same call runs later', async () => {
    const desk = notesDesk();
    desk.setMode('write-then-refuse');
    const refused = await desk.call('add_note', { text: 'boiler' });
    expect(refused.error).toMatchObject({ code: 'conflict' });
    expect(desk.committed).toEqual([]);
    expect(desk.seen.run).toEqual([]);
    expect(desk.audit.rows).toEqual([]);
    desk.setMode('pass');
    const later = await desk.call('add_note', { text: 'boiler' });
    expect(later).toMatchObject({ status: 'ok' });
    expect(later.replayed).toBeUndefined();
    expect(desk.committed).toEqual(['boiler']);
    expect(desk.audit.rows.map((r) => [r.action, r.outcome])).toEqual([['add_note', 'ok']]);
  });

  it('answer internal_error when they return no decision: nothing runs or is written, and the same call runs later', async () => {
    const desk = notesDesk();
    desk.setMode('write-then-no-decision');
    const defect = await desk.call('add_note', { text: 'boiler' });
    expect(defect.error).toMatchObject({ code: 'internal_error' });
    expect(JSON.stringify(defect)).not.toContain('watch');
    expect(desk.internalErrors).toHaveLength(1);
    expect(String(desk.internalErrors[0])).toMatch(/Guard watch returned no decision/);
    expect(desk.seen.run).toEqual([]);
    expect(desk.committed).toEqual([]);
    expect(desk.audit.rows).toEqual([]);
    desk.setMode('pass');
    const later = await desk.call('add_note', { text: 'boiler' });
    expect(later).toMatchObject({ status: 'ok' });
    expect(later.replayed).toBeUndefined();
    expect(desk.committed).toEqual(['boiler']);
  });

  it('are typed by the tool’s input and the host’s services', () => {
    defineGuard<{ text: string }, Services>({
      kind: 'unit',
      name: 'typed',
      check: ({ input, services }) => {
        // @ts-expect-error: the input has no `title`
        void input.title;
        // @ts-expect-error: the services have no `bookings`
        void services.bookings;
        return ALLOW;
      },
    });
    defineGuard<{ text: string }, Services>({
      kind: 'call',
      name: 'typedCall',
      check: (context) => {
        // @ts-expect-error: a call guard runs before the unit of work and gets no services
        void context.services;
        return ALLOW;
      },
    });
  });
});
