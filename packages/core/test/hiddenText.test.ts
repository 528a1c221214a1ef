/**
 * Every presented string drops the characters that hide or reorder text,
 * whoever wrote it: the presenter, an outward tool's prepare (previews and
 * the server-written summary), or core's own messages that quote input.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { withGuards } from '../../../test/withGuards.js';
import { createGatehouse, MemoryPendingActionStore } from '../src/index.js';
import { stripHidden, stripHiddenDeep } from '../src/internal.js';
import { connection, type Note, notesApp, RIGHTS, writeStores } from './fixtures.js';

const HIDDEN = ['\u202E', '\u200B', '\u2066', '\u0007', '\u{E0041}', '\uFEFF', '\u00AD', '\u061C'];
const hasHidden = (text: string) => HIDDEN.some((char) => text.includes(char));

describe('stripHidden', () => {
  it('drops hidden and reordering characters, keeps joiners, tab and newline', () => {
    expect(stripHidden('pay\u202Eexe.txt\u200B\u0007')).toBe('payexe.txt');
    expect(stripHidden('a\tb\nc\r\n')).toBe('a\tb\nc\n');
    expect(stripHidden('می\u200Cخواهم 👩\u200D💻')).toBe('می\u200Cخواهم 👩\u200D💻');
  });

  it('copies only what changes', () => {
    const clean = { a: ['x', { b: 'y' }] };
    expect(stripHiddenDeep(clean)).toBe(clean);
    expect(stripHiddenDeep({ a: ['x', { 'k\u202E': 'y\u200B' }] })).toEqual({ a: ['x', { k: 'y' }] });
  });
});

describe('rendered results', () => {
  it('a presenter that passes hidden characters through does not reach the wire with them', async () => {
    const rows: Note[] = [{ id: 'n1', tenant: 't1', text: 'evil\u202Egnp.exe\u200B', secret: 's' }];
    const { gh, findNotes } = notesApp(rows);
    const server = gh.createServer(
      withGuards({
        name: 't',
        version: '1',
        tools: [findNotes],
        authenticate: async () => ({ ok: false, status: 401, reason: 'none' }),
      }),
    );
    const result = await server.callTool(connection(), 'find_notes', { query: 'evil' });
    expect(result.content[0].text).toContain('evilgnp.exe');
    expect(hasHidden(JSON.stringify(result))).toBe(false);
  });

  it('core messages that quote what the caller sent carry no hidden characters', async () => {
    const { gh, findNotes } = notesApp();
    const server = gh.createServer(
      withGuards({
        name: 't',
        version: '1',
        tools: [findNotes],
        authenticate: async () => ({ ok: false, status: 401, reason: 'none' }),
      }),
    );
    const result = await server.callTool(connection(), 'find\u202E_notes\u2066', {});
    expect(result.isError).toBe(true);
    expect(hasHidden(JSON.stringify(result))).toBe(false);
  });

  it('previews and their server-written summary carry none, and the summary still confirms', async () => {
    const sent: string[] = [];
    const gh = createGatehouse({
      rights: RIGHTS,
      ports: { mailer: { effect: 'notify', port: { send: (text: string) => sent.push(text) } } },
      services: (_c, ports) => ({ mail: (text: string) => ports.mailer.send(text) }),
    });
    const notify = gh.defineTool({
      name: 'notify_owner',
      description: 'Mails the owner a line of text.',
      effect: 'notify',
      input: z.object({ text: z.string().max(100) }),
      presenter: { outputSchema: { type: 'object' }, present: () => ({ sent: true }) },
      prepare: ({ input }) => ({
        content: { body: `Hello\u202E ${input.text}` },
        summary: `mail \u2066${input.text}`,
      }),
      run: ({ input, services }) => services.mail(input.text),
    });
    const server = gh.createServer(
      withGuards({
        name: 't',
        version: '1',
        tools: [notify],
        authenticate: async () => ({ ok: false, status: 401, reason: 'none' }),
        confirm: { store: new MemoryPendingActionStore() },
        ...writeStores(),
      }),
    );
    const preview = await server.callTool(connection(), 'notify_owner', { text: 'hi\u200B there' });
    expect(hasHidden(JSON.stringify(preview))).toBe(false);
    const { confirm_token, confirm_summary } = preview.structuredContent as Record<string, string>;
    const done = await server.callTool(connection(), 'confirm_action', { confirm_token, confirm_summary });
    expect(done.structuredContent.status).toBe('ok');
    expect(sent).toHaveLength(1);
  });
});
