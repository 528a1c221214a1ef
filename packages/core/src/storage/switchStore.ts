/**
 * Switches (I6): the global kill switch and per-tenant agent access, by key.
 * `set` returns the previous value so the caller can audit before/after;
 * given a unit of work's handle (`unit`) it writes in that transaction, so
 * the change commits with its audit row. The memory store ignores it.
 */
export interface SwitchStore {
  get(key: string): Promise<boolean | undefined>;
  set(key: string, on: boolean, unit?: unknown): Promise<boolean | undefined>;
}

/** A {@link SwitchStore} in process memory. */
export class MemorySwitchStore implements SwitchStore {
  readonly #values = new Map<string, boolean>();

  async get(key: string): Promise<boolean | undefined> {
    return this.#values.get(key);
  }

  async set(key: string, on: boolean, _unit?: unknown): Promise<boolean | undefined> {
    const before = this.#values.get(key);
    this.#values.set(key, on);
    return before;
  }
}
