import { describe, expect, it } from 'vitest';
import { newAuditRows, sortAuditRows } from '../../src/contract/auditRows.js';
import { type ContractAuditRow, type ContractFixture, runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';
import type { Flaws } from './host/flaws.js';
import { type NotesHost, startNotesHost } from './host/notesHost.js';

/** The notes desk with `auditRows()` newest first, as `AuditStore.list` answers. */
function newestFirstFixture(flaws: Flaws = {}): ContractFixture<NotesHost> {
  return {
    ...notesFixture(flaws),
    async start() {
      const host = await startNotesHost(flaws);
      // an older row of another channel, as a CLI or the admin page writes them
      await host.setTenantAccess(host.other.tenantId, true);
      const rows = host.auditRows;
      return { ...host, auditRows: async () => [...((await rows?.()) ?? [])].reverse() };
    },
  };
}

const row = (id: string, at: number | string | undefined, channel = 'mcp'): ContractAuditRow => ({
  id,
  ...(at === undefined ? {} : { at }),
  channel,
});

describe('sortAuditRows', () => {
  it('orders rows by at, then id, whatever order they came in', () => {
    const rows = [
      row('01C', 3),
      row('01B', 2),
      row('01A', 2),
      row('01E', '5'),
      row('01D', '1970-01-01T00:00:00.004Z'),
    ];
    expect(sortAuditRows(rows).map((r) => r.id)).toEqual(['01A', '01B', '01C', '01D', '01E']);
  });
});

describe('newAuditRows', () => {
  it('takes the rows a call added by id, wherever the host puts them', () => {
    const before = [row('01B', 2, 'cli'), row('01A', 1, 'cli')];
    const after = [row('01C', 2), ...before];
    expect(newAuditRows(before, after)).toEqual([row('01C', 2)]);
  });

  it('takes them by content when rows carry no id, counting equal rows', () => {
    const cli = { channel: 'cli', action: 'token.create' };
    const mcp = { channel: 'mcp', action: 'create_note' };
    expect(newAuditRows([mcp, cli], [mcp, mcp, cli])).toEqual([mcp]);
  });

  it('finds the new row when the host returns only its latest rows', () => {
    const before = [row('01C', 3, 'cli'), row('01B', 2, 'cli')];
    expect(newAuditRows(before, [row('01D', 4), row('01C', 3, 'cli')])).toEqual([row('01D', 4)]);
  });
});

describe('I15.audit with auditRows() newest first', () => {
  it('passes a host that audits every write once', async () => {
    const outcomes = await runContractCheck(newestFirstFixture(), 'I15.audit', { tools: ['create_note'] });
    expect(outcomes.map((o) => [o.status, o.findings])).toEqual([['passed', []]]);
  });

  it('fails a host that drops audit rows', async () => {
    const outcomes = await runContractCheck(newestFirstFixture({ droppedAudit: true }), 'I15.audit', {
      tools: ['create_note'],
    });
    expect(outcomes.flatMap((o) => o.findings).join('\n')).toMatch(/0 audit rows, not 1/);
  });
});
