import { describe, expect, it } from 'vitest';
import { markerPlaces } from '../../src/contract/checks/tenancy.js';
import { type ContractFixture, type ListingFixture, runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';
import type { NotesHost } from './host/notesHost.js';

/** The notes desk with find_notes described as `listing` says (`undefined`: no listing at all). */
function listingFixture(listing: ListingFixture<NotesHost> | false | undefined): ContractFixture<NotesHost> {
  const base = notesFixture();
  return {
    ...base,
    tools: {
      ...base.tools,
      find_notes: { sample: {}, ...(listing === undefined ? {} : { listing }) },
    },
  };
}

const findings = async (fixture: ContractFixture<NotesHost>) => {
  const outcomes = await runContractCheck(fixture, 'I3.foreign-rows');
  return { tools: outcomes.map((o) => o.tool), text: outcomes.flatMap((o) => o.findings).join('\n') };
};

describe('markerPlaces', () => {
  it('finds a marker in text blocks, in the JSON they carry, and in structuredContent, by path', () => {
    const result = {
      content: [{ type: 'text', text: '{"notes":[{"title":"Say \\"hi\\""}]}' }],
      structuredContent: { notes: [{ title: 'Say "hi"' }] },
    };
    expect(markerPlaces(result, 'Say "hi"')).toEqual(['content[0].text', 'structuredContent.notes[0].title']);
    expect(markerPlaces(result, 'absent')).toEqual([]);
  });
});

describe('I3.foreign-rows', () => {
  it('runs for list-like reads only: find_notes, not get_note or list_recent_changes', async () => {
    const { tools, text } = await findings(notesFixture());
    expect([tools, text]).toEqual([['find_notes'], '']);
  });

  it('fails a list-like read tool the fixture declares no listing for', async () => {
    const { tools, text } = await findings(listingFixture(undefined));
    expect(tools).toEqual(['find_notes']);
    expect(text).toMatch(/find_notes is a read tool with no required id.*declares no listing/);
  });

  it('does not apply to a tool declared with listing: false', async () => {
    expect((await findings(listingFixture(false))).tools).toEqual([]);
  });

  it('fails as not exercised when the call lists nothing of the caller’s tenant', async () => {
    const empty = await findings(
      listingFixture({ args: { query: 'no such title' }, home: 'Gate code', other: 'leaking valve' }),
    );
    expect(empty.text).toMatch(
      /not exercised: the call as home lists no row with home's marker "Gate code"; an empty/,
    );
  });

  it('fails as not exercised when no row of the other tenant holds its marker', async () => {
    const { text } = await findings(listingFixture({ args: {}, home: 'Gate code', other: 'a typo' }));
    expect(text).toMatch(
      /not exercised: the call as other lists no row with other's marker "a typo", so its absence/,
    );
    expect(text).not.toMatch(/as home/);
  });

  it('refuses markers of which one contains the other', async () => {
    const { text } = await findings(listingFixture({ args: {}, home: 'Boiler service', other: 'Boiler' }));
    expect(text).toMatch(/overlap/);
  });
});
