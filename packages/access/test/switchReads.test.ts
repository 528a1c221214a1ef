/**
 * `createSwitches({ readCacheMs })`: switch reads reused for a bounded time,
 * and flips that resolve only once every reader's reuse has run out. Two
 * `createSwitches` over one store stand for two processes on one database.
 */
import { ConfigurationError, MemoryAuditStore, MemorySwitchStore, type SwitchStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { createSwitches } from '../src/index.js';

const OPS = { actorId: 'ops', channel: 'cli' };

/** A switch store that counts its reads and can be made to fail or to answer late (with the value it read first). */
function countingStore() {
  const inner = new MemorySwitchStore();
  const state = { reads: 0, failNext: false, delayMs: 0 };
  const store: SwitchStore = {
    async get(key) {
      state.reads++;
      const value = await inner.get(key); // the value when the read began, as a statement's snapshot
      if (state.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.delayMs));
      if (state.failNext) {
        state.failNext = false;
        throw new Error('database unreachable');
      }
      return value;
    },
    set: (key, on, unit) => inner.set(key, on, unit),
  };
  return { store, state };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createSwitches readCacheMs', () => {
  it('reads the store on every call by default', async () => {
    const { store, state } = countingStore();
    const switches = createSwitches({ store, audit: new MemoryAuditStore() });
    for (let i = 0; i < 5; i++) await switches.isGlobalOn();
    await switches.tenantAccess('t1');
    expect(state.reads).toBe(6);
  });

  it('reuses a read within readCacheMs, per key, and shares one read among calls in flight together', async () => {
    const { store, state } = countingStore();
    const switches = createSwitches({ store, audit: new MemoryAuditStore(), readCacheMs: 200 });
    state.delayMs = 20;
    const answers = await Promise.all([switches.isGlobalOn(), switches.isGlobalOn(), switches.isGlobalOn()]);
    expect(answers).toEqual([false, false, false]);
    expect(state.reads).toBe(1);
    state.delayMs = 0;
    for (let i = 0; i < 10; i++) await switches.isGlobalOn();
    expect(state.reads).toBe(1);
    expect(await switches.tenantAccess('t1')).toBe(true);
    expect(await switches.tenantAccess('t2')).toBe(true);
    expect(await switches.tenantAccess('t1')).toBe(true);
    expect(state.reads).toBe(3);
    await sleep(220);
    await switches.isGlobalOn();
    expect(state.reads).toBe(4);
  });

  it('resolves a flip only once every read begun before its commit has expired: another process sees it at once', async () => {
    const { store, state } = countingStore();
    const audit = new MemoryAuditStore();
    const server = createSwitches({ store, audit, readCacheMs: 150 });
    const cli = createSwitches({ store, audit, readCacheMs: 150 });
    expect(await server.isGlobalOn()).toBe(false);
    expect(await server.tenantAccess('t1')).toBe(true);
    const started = performance.now();
    const flipped = cli.setGlobal(true, OPS);
    const tenantFlipped = cli.setTenantAccess('t1', false, OPS);
    // until the flips resolve, the server may still answer what it read before them
    expect(await server.isGlobalOn()).toBe(false);
    await Promise.all([flipped, tenantFlipped]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    expect(await server.isGlobalOn()).toBe(true);
    expect(await server.tenantAccess('t1')).toBe(false);
    expect(await cli.isGlobalOn()).toBe(true);
    expect(state.reads).toBe(5);
    expect(audit.rows.filter((row) => row.action === 'switch.set')).toHaveLength(2);
  });

  it('dates a read from when it began, so a late answer expires as early as a prompt one', async () => {
    const { store, state } = countingStore();
    const audit = new MemoryAuditStore();
    const server = createSwitches({ store, audit, readCacheMs: 100 });
    const cli = createSwitches({ store, audit, readCacheMs: 100 });
    state.delayMs = 80; // the read begins before the flip and answers the old value late
    const late = server.isGlobalOn();
    await sleep(5);
    const flipped = cli.setGlobal(true, OPS);
    expect(await late).toBe(false);
    state.delayMs = 0;
    await flipped;
    expect(await server.isGlobalOn()).toBe(true);
  });

  it('never keeps a failed read: the next call reads the store again', async () => {
    const { store, state } = countingStore();
    const switches = createSwitches({ store, audit: new MemoryAuditStore(), readCacheMs: 1_000 });
    state.failNext = true;
    await expect(switches.isGlobalOn()).rejects.toThrow('database unreachable');
    expect(await switches.isGlobalOn()).toBe(false);
    expect(state.reads).toBe(2);
  });

  it('reads a store that throws at once or answers a plain value: the throw refuses that read only', async () => {
    let calls = 0;
    const store: SwitchStore = {
      get: (() => {
        calls++;
        if (calls === 1) throw new Error('not connected');
        return true; // a plain value, not a promise
      }) as unknown as SwitchStore['get'],
      set: async () => undefined,
    };
    const switches = createSwitches({ store, audit: new MemoryAuditStore(), readCacheMs: 1_000 });
    await expect(switches.isGlobalOn()).rejects.toThrow('not connected');
    expect(await switches.isGlobalOn()).toBe(true);
    expect(calls).toBe(2);
  });

  it('keeps at most 10,000 keys: past that, the oldest read is let go first', async () => {
    const { store, state } = countingStore();
    const switches = createSwitches({ store, audit: new MemoryAuditStore(), readCacheMs: 5_000 });
    for (let i = 0; i <= 10_000; i++) await switches.tenantAccess(`t${i}`);
    expect(state.reads).toBe(10_001);
    await switches.tenantAccess('t10000');
    expect(state.reads).toBe(10_001);
    await switches.tenantAccess('t0');
    expect(state.reads).toBe(10_002);
  });

  it('refuses a readCacheMs that is not a whole number of ms from 0 to 5,000', () => {
    const { store } = countingStore();
    for (const readCacheMs of [-1, 1.5, 5_001, Number.NaN, '250' as unknown as number]) {
      expect(
        () => createSwitches({ store, audit: new MemoryAuditStore(), readCacheMs }),
        String(readCacheMs),
      ).toThrow(ConfigurationError);
    }
  });
});
