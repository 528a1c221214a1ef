import type { ContractFixture } from '../../../src/index.js';
import type { Flaws } from './flaws.js';
import { type GuardSwaps, type NotesHost, startNotesHost } from './notesHost.js';

const at = { local: '2026-05-04T09:00', zone: 'Europe/Berlin' };

/** The contract fixture of the minimal notes host; `flaws` break it on purpose. */
export function notesFixture(flaws: Flaws = {}): ContractFixture<NotesHost> {
  // #region fixture
  const fixture: ContractFixture<NotesHost> = {
    name: 'notes desk',
    start: () => startNotesHost(flaws),
    limited: { toolset: 'compact' },
    capabilities: { replay: true, audit: true, confirm: true },
    tools: {
      find_notes: { sample: {}, listing: { args: {}, home: 'Gate code', other: 'leaking valve' } },
      get_note: { sample: { id: 'n1' }, foreign: { id: 'n3' } },
      create_note: {
        sample: { title: 'Quarterly boiler check', body: 'Ring twice.' },
        duplicate: {
          second: { title: 'Quarterly boiler check', body: 'Other text.' },
          updateTool: 'update_note',
        },
      },
      update_note: {
        sample: (host) => ({ id: 'n1', body: 'Valve replaced.', version: host.versionOf('n1') }),
        foreign: (host) => ({ id: 'n3', body: 'Valve replaced.', version: host.versionOf('n3') }),
        version: { read: { tool: 'get_note', args: { id: 'n1' } } },
      },
      archive_notes: {
        sample: { filter: { title_contains: 'Boiler' }, expected_count: 1 },
        foreign: { ids: ['n3'] },
        batch: { mismatch: { filter: { title_contains: 'Gate' }, expected_count: 1 }, matches: 3 },
      },
      schedule_reminder: {
        sample: { note_id: 'n1', at },
        foreign: { note_id: 'n3', at },
        time: { argument: 'at' },
      },
      notify_watchers: {
        effect: 'notify',
        sample: { note_id: 'n1', message: 'The boiler is fixed.' },
        foreign: { note_id: 'n3', message: 'The boiler is fixed.' },
      },
    },
  };
  // #endregion fixture
  return fixture;
}

/** The notes desk with guards of a kind swapped for a team's own: the contract must hold just the same. */
export function swappedFixture(swaps: GuardSwaps): ContractFixture<NotesHost> {
  return {
    ...notesFixture(),
    name: 'notes desk, swapped guards',
    start: () => startNotesHost({}, undefined, swaps),
  };
}
