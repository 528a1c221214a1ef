/**
 * A Map whose entries expire. Expired entries are invisible at once and
 * swept in small batches on writes, so memory stays bounded by the live set.
 * Insertion order equals expiry order only when TTLs are equal; the sweep
 * therefore checks a bounded number of oldest entries per write.
 */
export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();

  get size(): number {
    return this.#entries.size;
  }

  get(key: K, now: number): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: K, value: V, expiresAt: number, now: number): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt });
    this.sweep(now, 8);
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Removes up to `limit` expired entries from the oldest end; returns how many. */
  sweep(now: number, limit = Number.POSITIVE_INFINITY): number {
    let removed = 0;
    let checked = 0;
    for (const [key, entry] of this.#entries) {
      if (checked++ >= limit) break;
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        removed++;
      }
    }
    return removed;
  }

  values(now: number): V[] {
    return [...this.#entries.values()].filter((e) => e.expiresAt > now).map((e) => e.value);
  }
}
