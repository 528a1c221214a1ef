import { describe, expect, it } from 'vitest';
import { fuzzContract } from '../../src/fuzz.js';
import { type CheckOutcome, runContractCheck } from '../../src/index.js';
import { notesFixture } from './host/fixture.js';
import type { Flaws } from './host/flaws.js';

/** A deliberately broken host and the check that must catch it. */
interface Mutation {
  readonly flaw: keyof Flaws;
  readonly check: string;
  readonly tools?: readonly string[];
  /** A finding that names the break. */
  readonly finding: RegExp;
}

const MUTATIONS: readonly Mutation[] = [
  { flaw: 'noTenantScoping', check: 'I3.foreign-ids', tools: ['get_note'], finding: /not not_found/ },
  {
    flaw: 'unscopedFind',
    check: 'I3.foreign-rows',
    tools: ['find_notes'],
    finding: /as home shows the other tenant's marker "leaking valve" at structuredContent\.result\.notes/,
  },
  { flaw: 'cachedRights', check: 'I4.role-removed', tools: ['update_note'], finding: /still ran/ },
  { flaw: 'cachedRights', check: 'I4.deactivated', finding: /not 401/ },
  { flaw: 'acceptsApiTokens', check: 'I5.credential-pairings', finding: /a product API token: .* not 401/ },
  { flaw: 'trustsForeignOrigin', check: 'I5.bad-origin', finding: /not 403/ },
  { flaw: 'ignoresKillSwitch', check: 'I6.global-switch', tools: ['create_note'], finding: /not 503/ },
  { flaw: 'ignoresKillSwitch', check: 'I6.tenant-switch', tools: ['create_note'], finding: /switched off/ },
  { flaw: 'listOnlyVisibility', check: 'I7.hidden-tool', tools: ['create_note'], finding: /rows changed/ },
  {
    flaw: 'stickyListing',
    check: 'I7.listing-agrees',
    tools: ['create_note'],
    finding:
      /with the tenant switched off, tools\/list shows the tool but calling it answers tenant_disabled/,
  },
  { flaw: 'mailsOnUpdate', check: 'I8.silent-effects', tools: ['update_note'], finding: /sent 1 message/ },
  { flaw: 'outwardAsWrite', check: 'I9.confirm', tools: ['notify_watchers'], finding: /no PREVIEW/ },
  {
    flaw: 'keepsRefusedTokens',
    check: 'I9.confirm',
    tools: ['notify_watchers'],
    finding: /refused by the tenant switch was answered with a successful result later, not confirm_used/,
  },
  {
    flaw: 'ignoresKillSwitch',
    check: 'I9.confirm',
    tools: ['notify_watchers'],
    finding: /refused by the tenant switch was answered with a successful result$/m,
  },
  { flaw: 'noReplay', check: 'I10.replay', tools: ['create_note'], finding: /without replayed: true/ },
  { flaw: 'staleDuplicateLookup', check: 'I11.duplicate', tools: ['create_note'], finding: /not duplicate/ },
  { flaw: 'noVersionGuard', check: 'I12.stale-version', tools: ['update_note'], finding: /not conflict/ },
  {
    flaw: 'noBatchGuard',
    check: 'I13.batch-count',
    tools: ['archive_notes'],
    finding: /not batch_count_mismatch/,
  },
  {
    flaw: 'stripsUnknownArguments',
    check: 'I14.unknown-arguments',
    tools: ['update_note'],
    finding: /not a tool error/,
  },
  { flaw: 'droppedAudit', check: 'I15.audit', tools: ['create_note'], finding: /0 audit rows/ },
  {
    flaw: 'rawThirdPartyText',
    check: 'I16.canaries',
    tools: ['get_note'],
    finding: /outside an untrusted_text/,
  },
  {
    flaw: 'instructiveDescription',
    check: 'I16.descriptions',
    finding: /find_notes: a description instructs/,
  },
  {
    flaw: 'leaksSecretColumn',
    check: 'I17.decoys',
    tools: ['get_note'],
    finding: /result carries a secret decoy/,
  },
  { flaw: 'logsArguments', check: 'I17.logged-arguments', tools: ['get_note'], finding: /reached the logs/ },
  {
    flaw: 'rewritesErrors',
    check: 'I18.error-envelope',
    tools: ['get_note'],
    finding: /does not start with "Error:"/,
  },
  { flaw: 'wrongOutputSchema', check: 'I19.result-shape', tools: ['get_note'], finding: /does not validate/ },
  {
    flaw: 'invalidOutputSchema',
    check: 'I19.output-schema',
    tools: ['get_note'],
    finding: /not a valid JSON Schema 2020-12|does not describe an object/,
  },
  {
    flaw: 'lenientTime',
    check: 'I20.dst',
    tools: ['schedule_reminder'],
    finding: /gap\) was answered with a successful result/,
  },
];

const failed = (outcomes: readonly CheckOutcome[]) => outcomes.filter((o) => o.status === 'failed');

describe('contract checks against broken hosts', () => {
  for (const m of MUTATIONS) {
    it(`${m.check} fails when the host has the flaw ${m.flaw}`, async () => {
      const outcomes = await runContractCheck(
        notesFixture({ [m.flaw]: true }),
        m.check,
        m.tools ? { tools: m.tools } : {},
      );
      expect(outcomes.length, 'cases run').toBeGreaterThan(0);
      expect(
        failed(outcomes)
          .flatMap((o) => o.findings)
          .join('\n'),
      ).toMatch(m.finding);
    });
  }

  it('passes every mutated check against the unbroken host', async () => {
    for (const check of new Set(MUTATIONS.map((m) => m.check))) {
      const tools = MUTATIONS.find((m) => m.check === check)?.tools;
      const outcomes = await runContractCheck(notesFixture(), check, tools ? { tools } : {});
      expect(failed(outcomes), check).toEqual([]);
    }
  }, 60_000);
});

describe('fuzzContract against broken hosts', () => {
  it('finds a write on a refused call when create_note writes before it validates', async () => {
    const [report] = await fuzzContract(notesFixture({ writesBeforeValidating: true }), {
      tools: ['create_note'],
      numRuns: 10,
      seed: 7,
    });
    expect(report?.findings.join('\n')).toMatch(/rows changed by a refused call/);
  });

  it('finds an internal error when find_notes builds a RegExp from the query', async () => {
    const [report] = await fuzzContract(notesFixture({ regexSearch: true }), {
      tools: ['find_notes'],
      numRuns: 10,
      seed: 7,
    });
    expect(report?.findings.join('\n')).toMatch(/internal_error/);
    expect(report?.counterexample).toBeDefined();
  });

  it('finds nothing on the unbroken host', async () => {
    const reports = await fuzzContract(notesFixture(), {
      tools: ['create_note', 'find_notes'],
      numRuns: 10,
      seed: 7,
    });
    expect(reports.flatMap((r) => r.findings)).toEqual([]);
  });
});
