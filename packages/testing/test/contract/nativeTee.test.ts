/**
 * The whole contract suite (2026-07-28 over HTTP) sent through a tee in front
 * of two twins of the notes host, core's native path on and off: every
 * request is answered by both, and the answers must agree byte for byte
 * (generated ids, tokens and timestamps aside), as must the twins' stores.
 */
import { describe, expect, it } from 'vitest';
import { RawHttpClient } from '../../src/index.js';
import { describeContract } from '../../src/vitest.js';
import { notesFixture } from './host/fixture.js';
import { startTeeHost, type TeeLog } from './nativeTee/teeHost.js';

const log: TeeLog = { exchanges: [], stores: [], closed: 0 };

describeContract(
  { ...notesFixture(), name: 'notes desk through the native tee', start: () => startTeeHost(log) },
  { fuzz: { numRuns: 20 } },
);

// runs after the suite above: vitest runs a file's tests in the order they were registered
describe('the native tee', () => {
  it('saw every exchange of the suite answered the same by the native path and the SDK', () => {
    const { exchanges } = log;
    const native = exchanges.filter(({ exchange }) => exchange.native && exchange.sdk).length;
    const admission = exchanges.filter(({ exchange }) => exchange.native && !exchange.sdk).length;
    const sdk = exchanges.length - native - admission;
    const counts = `${exchanges.length} exchanges: ${native} native, ${sdk} SDK, ${admission} admission`;
    expect(exchanges.length, counts).toBeGreaterThan(1000);
    expect(native, counts).toBeGreaterThan(exchanges.length / 2);
    expect(
      exchanges.flatMap(({ label, exchange }) => exchange.differences.map((d) => `${label}: ${d}`)),
    ).toEqual([]);
    expect(log.closed).toBeGreaterThan(100);
    expect(log.stores).toEqual([]);
  });

  it('records a difference, and answers with the native twin, when the twins disagree', async () => {
    const seen: TeeLog = { exchanges: [], stores: [], closed: 0 };
    // the SDK twin alone lists an instructive description and mails on every update
    const host = await startTeeHost(seen, { instructiveDescription: true, mailsOnUpdate: true });
    const client = new RawHttpClient({
      url: host.endpoint.url,
      era: '2026-07-28',
      headers: { authorization: `Bearer ${await host.mint(host.home)}` },
    });
    const listed = await client.listTools();
    expect(listed.text).toContain('find_notes');
    expect(listed.text).not.toContain('ignore earlier instructions');
    const args = { id: 'n1', body: 'Valve replaced.', version: host.versionOf('n1') };
    const updated = await client.callTool('update_note', args);
    expect(updated.result?.structuredContent, updated.text).toMatchObject({ status: 'ok' });
    await host.close();
    const compared = seen.exchanges.map(({ label, exchange }) => [label, exchange.differences.length]);
    expect(compared).toEqual([
      ['POST tools/list', 1],
      ['POST tools/call update_note', 0],
    ]);
    expect(seen.exchanges[0]?.exchange.differences[0]).toContain('ignore earlier instructions');
    expect(seen.stores).toEqual(['messages sent: native 0, sdk 1']);
    expect(seen.closed).toBe(1);
  });
});
