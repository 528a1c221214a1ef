import {
  ALLOW,
  ConfigurationError,
  checkGuard,
  GUARD_KINDS,
  type Guard,
  type GuardKind,
  MemoryPendingActionStore,
  MemoryRateBucketStore,
  MemoryReplayStore,
  type PendingActionStore,
  type RateBucketStore,
  type ReplayStore,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import {
  batchCountGuard,
  confirmGuard,
  duplicateGuard,
  globalKillSwitchGuard,
  killSwitchGuards,
  rateGuard,
  replayGuard,
  rightsGuard,
  type StandardGuardsOptions,
  type SwitchReader,
  standardGuards,
  tenantGuard,
  tenantSwitchGuard,
  untrustedTextGuard,
  versionGuard,
} from '../src/index.js';

const switches: SwitchReader = { isGlobalOn: async () => false, tenantAccess: async () => true };
const stores = () => ({
  replay: new MemoryReplayStore(),
  pendingActions: new MemoryPendingActionStore(),
  rateBuckets: new MemoryRateBucketStore(),
});
const match = () => ({ total: 0, sample: [] });
const dutyOf = (guard: Guard) => (guard as { duty?: string }).duty;

/** The methods a guard of each kind must have (core's contract, restated so a change to it shows here). */
const METHODS: Record<GuardKind, readonly string[]> = {
  admission: ['admit'],
  visibility: [],
  rate: ['take', 'refund'],
  call: ['check'],
  claim: ['claim', 'keepAlive', 'complete', 'held', 'release'],
  unit: ['check'],
  outward: ['open', 'find', 'claim', 'keepAlive', 'mark'],
  output: ['leave'],
};

/**
 * Asserts that `guard` is a guard of exactly `kind` (and `duty`): core
 * accepts it, it has its kind's methods, none that only another kind has,
 * and it is frozen.
 */
function expectKind(guard: Guard, kind: GuardKind, duty?: string) {
  expect(() => checkGuard(guard)).not.toThrow();
  expect(guard.kind).toBe(kind);
  expect(dutyOf(guard)).toBe(duty);
  const own = new Set(METHODS[kind]);
  for (const method of own)
    expect(typeof (guard as unknown as Record<string, unknown>)[method], method).toBe('function');
  const foreign = GUARD_KINDS.filter((k) => k !== kind).flatMap((k) => METHODS[k].filter((m) => !own.has(m)));
  for (const method of foreign)
    expect((guard as unknown as Record<string, unknown>)[method], method).toBeUndefined();
  expect(Object.isFrozen(guard)).toBe(true);
}

/** The message of the ConfigurationError `build` throws; fails the test when it throws anything else or nothing. */
function configurationError(build: () => unknown): string {
  try {
    build();
  } catch (error) {
    expect(ConfigurationError.is(error), String(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('no ConfigurationError was thrown');
}

describe('tenantGuard', () => {
  it('returns a visibility guard with the tenant duty', () => {
    expectKind(tenantGuard(), 'visibility', 'tenant');
    expectKind(tenantGuard({ names: ['account'] }), 'visibility', 'tenant');
  });

  it('refuses names that are not property names', () => {
    expect(configurationError(() => tenantGuard({ names: [''] }))).toMatch(/^tenantGuard: names must be/);
    expect(configurationError(() => tenantGuard({ names: ['--'] }))).toMatch(/^tenantGuard: names must be/);
    expect(configurationError(() => tenantGuard({ names: 'account' as never }))).toMatch(
      /^tenantGuard: names/,
    );
  });
});

describe('rightsGuard', () => {
  it('returns a visibility guard with the rights duty', () => {
    expectKind(rightsGuard(), 'visibility', 'rights');
  });
});

describe('globalKillSwitchGuard', () => {
  it('returns an admission guard with the killSwitch duty', () => {
    expectKind(globalKillSwitchGuard({ switches }), 'admission', 'killSwitch');
  });

  it('refuses a missing switch reader and a bad retryAfterSeconds', () => {
    expect(configurationError(() => globalKillSwitchGuard({} as never))).toMatch(
      /^globalKillSwitchGuard: switches must read the switches/,
    );
    expect(configurationError(() => globalKillSwitchGuard(undefined as never))).toMatch(
      /^globalKillSwitchGuard:/,
    );
    expect(
      configurationError(() =>
        globalKillSwitchGuard({ switches: { isGlobalOn: async () => false } as never }),
      ),
    ).toMatch(/^globalKillSwitchGuard: switches must read the switches/);
    for (const retryAfterSeconds of [0, 1.5, -1]) {
      expect(configurationError(() => globalKillSwitchGuard({ switches, retryAfterSeconds }))).toMatch(
        /^globalKillSwitchGuard: retryAfterSeconds must be a positive integer/,
      );
    }
  });
});

describe('tenantSwitchGuard', () => {
  it('returns a visibility guard with the tenantSwitch duty', () => {
    expectKind(tenantSwitchGuard({ switches }), 'visibility', 'tenantSwitch');
  });

  it('refuses a missing switch reader and a bad retryAfterSeconds', () => {
    expect(configurationError(() => tenantSwitchGuard({ switches: {} as never }))).toMatch(
      /^tenantSwitchGuard: switches must read the switches/,
    );
    expect(configurationError(() => tenantSwitchGuard({ switches, retryAfterSeconds: 0 }))).toMatch(
      /^tenantSwitchGuard: retryAfterSeconds/,
    );
  });
});

describe('killSwitchGuards', () => {
  it('returns the global switch at admission and the per-tenant one in visibility, from one reader', () => {
    const [global, tenant] = killSwitchGuards({ switches, retryAfterSeconds: 60 });
    expectKind(global, 'admission', 'killSwitch');
    expectKind(tenant, 'visibility', 'tenantSwitch');
  });

  it('refuses what its two guards refuse', () => {
    expect(configurationError(() => killSwitchGuards({ switches: undefined as never }))).toMatch(
      /switches must read the switches/,
    );
    expect(configurationError(() => killSwitchGuards({ switches, retryAfterSeconds: 0 }))).toMatch(
      /retryAfterSeconds must be a positive integer/,
    );
  });
});

describe('rateGuard', () => {
  it('returns a rate guard', () => {
    expectKind(rateGuard({ store: new MemoryRateBucketStore() }), 'rate');
  });

  it('refuses a store without take and refund, bad limits and unknown effect classes', () => {
    const store = new MemoryRateBucketStore();
    const noRefund = { take: store.take.bind(store) } as unknown as RateBucketStore;
    expect(configurationError(() => rateGuard({ store: noRefund }))).toMatch(
      /^rateGuard: store must be a RateBucketStore/,
    );
    expect(configurationError(() => rateGuard(undefined as never))).toMatch(/^rateGuard: store must be/);
    expect(configurationError(() => rateGuard({ store, stores: { write: noRefund } }))).toMatch(
      /^rateGuard: stores\.write must be a RateBucketStore/,
    );
    expect(configurationError(() => rateGuard({ store, stores: { email: store } as never }))).toMatch(
      /^rateGuard: stores entry for unknown effect class email/,
    );
    expect(
      configurationError(() => rateGuard({ store, fallback: { capacity: 0, refillPerSecond: 1 } })),
    ).toMatch(/^rateGuard: limit fallback needs capacity ≥ 1 and refillPerSecond > 0/);
    expect(
      configurationError(() => rateGuard({ store, limits: { write: { capacity: 1, refillPerSecond: 0 } } })),
    ).toMatch(/^rateGuard: limit write needs capacity/);
    expect(
      configurationError(() =>
        rateGuard({ store, limits: { email: { capacity: 1, refillPerSecond: 1 } } as never }),
      ),
    ).toMatch(/^rateGuard: limit for unknown effect class email/);
  });
});

describe('replayGuard', () => {
  it('returns a claim guard', () => {
    expectKind(replayGuard({ store: new MemoryReplayStore() }), 'claim');
  });

  it('refuses a store that cannot claim under a lease, bad windows and a lease shorter than its renewal', () => {
    const store = new MemoryReplayStore();
    const noRenew = { ...store, begin: store.begin.bind(store), renew: undefined } as unknown as ReplayStore;
    expect(configurationError(() => replayGuard({ store: noRenew }))).toMatch(
      /^replayGuard: store must be a ReplayStore/,
    );
    expect(configurationError(() => replayGuard(undefined as never))).toMatch(/^replayGuard: store must be/);
    expect(configurationError(() => replayGuard({ store, windowMs: 0 }))).toMatch(
      /^replayGuard: windowMs must be a positive number/,
    );
    expect(configurationError(() => replayGuard({ store, keyedWindowMs: Number.NaN }))).toMatch(
      /^replayGuard: keyedWindowMs must be a positive number/,
    );
    expect(configurationError(() => replayGuard({ store, waitMs: -1 }))).toMatch(
      /^replayGuard: waitMs must be a non-negative number/,
    );
    expect(configurationError(() => replayGuard({ store, pollMs: 0 }))).toMatch(
      /^replayGuard: pollMs must be a positive number/,
    );
    expect(configurationError(() => replayGuard({ store, leaseMs: 0 }))).toMatch(
      /^replayGuard: leaseMs must be a positive integer of milliseconds/,
    );
    expect(configurationError(() => replayGuard({ store, leaseMs: 1_000, renewMs: 1_000 }))).toMatch(
      /^replayGuard: leaseMs \(1000 ms\) must exceed renewMs \(1000 ms\)/,
    );
  });
});

describe('duplicateGuard', () => {
  it('returns a unit guard', () => {
    expectKind(duplicateGuard({ key: () => ({}), find: () => undefined, updateTool: 'update_note' }), 'unit');
  });

  // The refusal shows the key as of the call's time (a start "in 4 s"); the lock two creates of
  // one key wait on must not move with it, or a create a second later would not wait for the first.
  it('names the lock of a key by the input alone, and shows the key as of the call', async () => {
    const keyTimes: number[] = [];
    const guard = duplicateGuard<{ at: number }, object>({
      key: (input, { now }) => {
        keyTimes.push(now.getTime());
        return { at: input.at, from_now: `in ${(input.at - now.getTime()) / 1000} s` };
      },
      find: ({ input }) => (input.at === 9_000 ? { id: 'x_1' } : undefined),
      updateTool: 'update_x',
    });
    const locks: string[] = [];
    const checkAt = (at: number, now: number) =>
      guard.check({
        tool: { name: 'create_x' },
        connection: {
          connectionId: 'c1',
          tenantId: 't1',
          creatorId: 'p1',
          clientName: 'x',
          channel: 'mcp',
          rights: new Set(),
        },
        input: { at },
        guardArguments: {},
        context: {},
        now: new Date(now),
        note: () => {},
        services: {},
        serialize: async (name: string) => {
          locks.push(name);
        },
      } as never);
    const first = await checkAt(9_000, 5_000);
    const second = await checkAt(9_000, 6_000);
    expect(locks).toHaveLength(2);
    expect(locks[1]).toBe(locks[0]);
    expect(first).toMatchObject({
      ok: false,
      code: 'duplicate',
      details: { key: { at: 9_000, from_now: 'in 4 s' } },
    });
    expect(second).toMatchObject({ ok: false, details: { key: { from_now: 'in 3 s' } } });
    // another key, another lock; a key with no existing object is not computed for display
    keyTimes.length = 0;
    expect(await checkAt(8_000, 5_000)).toEqual(ALLOW);
    expect(locks[2]).not.toBe(locks[0]);
    expect(keyTimes).toEqual([0]);
  });

  it('refuses a missing key, find or updateTool', () => {
    const ok = { key: () => ({}), find: () => undefined, updateTool: 'update_note' };
    for (const bad of [
      { ...ok, key: undefined },
      { ...ok, find: 'no' },
      { ...ok, updateTool: '' },
      { ...ok, updateTool: undefined },
      undefined,
    ]) {
      expect(configurationError(() => duplicateGuard(bad as never))).toMatch(
        /^duplicateGuard: key\(\), find\(\) and updateTool are required/,
      );
    }
  });
});

describe('versionGuard', () => {
  it('returns a unit guard', () => {
    expectKind(versionGuard({ current: () => undefined }), 'unit');
  });

  it('refuses a missing current', () => {
    expect(configurationError(() => versionGuard({} as never))).toMatch(/^versionGuard: current is required/);
    expect(configurationError(() => versionGuard({ current: 'v1' as never }))).toMatch(
      /^versionGuard: current is required/,
    );
  });
});

describe('batchCountGuard', () => {
  it('returns a unit guard named batchCount', () => {
    const guard = batchCountGuard({ match });
    expectKind(guard, 'unit');
    expect(guard.name).toBe('batchCount');
  });

  it('refuses a missing match and sizes that are not positive integers', () => {
    expect(configurationError(() => batchCountGuard({} as never))).toMatch(
      /^batchCountGuard: match is required/,
    );
    for (const sizes of [{ maxSize: 0 }, { maxSize: 2.5 }, { maxListed: 0 }, { maxListed: -3 }]) {
      expect(configurationError(() => batchCountGuard({ match, ...sizes }))).toMatch(
        /^batchCountGuard: maxSize and maxListed must be positive integers/,
      );
    }
  });
});

describe('confirmGuard', () => {
  it('returns an outward guard', () => {
    expectKind(confirmGuard({ store: new MemoryPendingActionStore() }), 'outward');
  });

  it('refuses a store that cannot claim under a lease, a bad ttlMs, lease or approval', () => {
    const store = new MemoryPendingActionStore();
    const noClaim = { insert: store.insert.bind(store) } as unknown as PendingActionStore;
    expect(configurationError(() => confirmGuard({ store: noClaim }))).toMatch(
      /^confirmGuard: store must be a PendingActionStore with claim and renewClaim/,
    );
    expect(configurationError(() => confirmGuard(undefined as never))).toMatch(
      /^confirmGuard: store must be/,
    );
    for (const ttlMs of [0, 1.5, Number.POSITIVE_INFINITY]) {
      expect(configurationError(() => confirmGuard({ store, ttlMs }))).toMatch(
        /^confirmGuard: ttlMs must be a positive integer of milliseconds/,
      );
    }
    expect(configurationError(() => confirmGuard({ store, leaseMs: 100, renewMs: 200 }))).toMatch(
      /^confirmGuard: leaseMs \(100 ms\) must exceed renewMs \(200 ms\)/,
    );
    expect(configurationError(() => confirmGuard({ store, approval: 'person' as never }))).toMatch(
      /^confirmGuard: approval must be \{ url, connectionOf, byEffect\?, approvers\? \}/,
    );
  });
});

describe('untrustedTextGuard', () => {
  it('returns an output guard', () => {
    expectKind(untrustedTextGuard(), 'output');
  });
});

/** A guard object of each kind a team might write itself, to replace a standard one. */
const own = {
  tenant: { kind: 'visibility', name: 'ownTenant', duty: 'tenant', connection: () => ALLOW },
  rights: { kind: 'visibility', name: 'ownRights', duty: 'rights', tool: () => ALLOW },
  rate: {
    kind: 'rate',
    name: 'ownRate',
    take: async () => ({ ok: true, token: undefined }),
    refund: async () => {},
  },
  replay: replayGuard({ store: new MemoryReplayStore() }),
  confirm: confirmGuard({ store: new MemoryPendingActionStore() }),
  output: { kind: 'output', name: 'ownOutput', leave: (structured) => ({ ok: true, structured }) },
} satisfies Partial<Record<keyof StandardGuardsOptions, Guard>>;

/** For each replaceable guard: a guard of another kind, which must be refused in its place. */
const otherKind: Record<keyof typeof own, Guard> = {
  tenant: own.rate,
  rights: own.output,
  rate: own.replay,
  replay: own.confirm,
  confirm: own.replay,
  output: own.tenant,
};

describe('standardGuards', () => {
  it('lists one guard of each duty and kind a server needs', () => {
    const guards = standardGuards(stores(), { switches });
    const duties = guards.map((g) => (dutyOf(g) ? `${g.kind}:${dutyOf(g)}` : g.kind));
    expect(duties.sort()).toEqual(
      [
        'visibility:tenant',
        'visibility:rights',
        'admission:killSwitch',
        'visibility:tenantSwitch',
        'rate',
        'claim',
        'outward',
        'output',
      ].sort(),
    );
    for (const guard of guards) expect(() => checkGuard(guard)).not.toThrow();
    expect(new Set(guards.map((g) => g.name)).size).toBe(guards.length);
    expect(Object.isFrozen(guards)).toBe(true);
  });

  it('builds each guard on the stores it is given, with the options given for it', () => {
    const given = stores();
    const guards = standardGuards(given, {
      switches,
      retryAfterSeconds: 42,
      replay: { leaseMs: 30_000, renewMs: 3_000 },
      confirm: { ttlMs: 60_000 },
    });
    const claim = guards.find((g) => g.kind === 'claim');
    const outward = guards.find((g) => g.kind === 'outward');
    expect(claim && 'lease' in claim ? claim.lease : undefined).toEqual({ leaseMs: 30_000, renewMs: 3_000 });
    expect(outward && 'ttlMs' in outward ? outward.ttlMs : undefined).toBe(60_000);
  });

  it('passes each guard’s options through its factory’s checks', () => {
    expect(configurationError(() => standardGuards(stores(), { switches, replay: { windowMs: 0 } }))).toMatch(
      /^replayGuard: windowMs/,
    );
    expect(
      configurationError(() =>
        standardGuards(stores(), { switches, rate: { fallback: { capacity: 0, refillPerSecond: 1 } } }),
      ),
    ).toMatch(/^rateGuard: limit fallback/);
    expect(configurationError(() => standardGuards(stores(), { switches, retryAfterSeconds: 0 }))).toMatch(
      /retryAfterSeconds must be a positive integer/,
    );
    expect(configurationError(() => standardGuards(stores(), { switches, tenant: { names: [''] } }))).toMatch(
      /^tenantGuard: names/,
    );
  });

  it('refuses a missing stores object, options without their store, and a missing switch reader', () => {
    expect(configurationError(() => standardGuards(null as never, { switches }))).toMatch(
      /^standardGuards: stores must be an object/,
    );
    expect(configurationError(() => standardGuards({}, { switches, replay: { windowMs: 1_000 } }))).toMatch(
      /^standardGuards: replay options need stores\.replay/,
    );
    expect(configurationError(() => standardGuards(stores(), {} as never))).toMatch(
      /^standardGuards: switches is required/,
    );
    expect(configurationError(() => standardGuards(stores(), undefined as never))).toMatch(
      /^standardGuards: switches is required/,
    );
  });

  it('leaves out the guards whose store is absent: a read-only server passes none', () => {
    const kinds = standardGuards({}, { switches }).map((g) => g.kind);
    expect(kinds).not.toContain('claim');
    expect(kinds).not.toContain('outward');
    expect(kinds).not.toContain('rate');
    expect(kinds).toEqual(['visibility', 'visibility', 'admission', 'visibility', 'output']);
  });

  for (const slot of Object.keys(own) as (keyof typeof own)[]) {
    it(`takes a guard object of the same kind in place of its ${slot} guard, and refuses one of another kind`, () => {
      const replacement = own[slot];
      const guards = standardGuards(stores(), { switches, [slot]: replacement });
      expect(guards).toContain(replacement);
      expect(guards.filter((g) => g.kind === replacement.kind && dutyOf(g) === dutyOf(replacement))).toEqual([
        replacement,
      ]);
      const wrong = otherKind[slot];
      expect(configurationError(() => standardGuards(stores(), { switches, [slot]: wrong }))).toMatch(
        new RegExp(`^standardGuards: ${slot} must be a ${replacement.kind} guard`),
      );
    });
  }
});
