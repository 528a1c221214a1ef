/**
 * Switches (I6): the global kill switch and per-tenant agent access, by key.
 * `set` returns the previous value so the caller can audit before/after.
 */
export interface SwitchStore {
  get(key: string): Promise<boolean | undefined>;
  set(key: string, on: boolean): Promise<boolean | undefined>;
}

/** A {@link SwitchStore} in process memory. */
export class MemorySwitchStore implements SwitchStore {
  readonly #values = new Map<string, boolean>();

  async get(key: string): Promise<boolean | undefined> {
    return this.#values.get(key);
  }

  async set(key: string, on: boolean): Promise<boolean | undefined> {
    const before = this.#values.get(key);
    this.#values.set(key, on);
    return before;
  }
}
