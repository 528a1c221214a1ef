interface Expiry<K> {
  readonly key: K;
  readonly expiresAt: number;
}

/**
 * A Map whose entries expire. Expired entries are invisible at once; a
 * min-heap of expiry times lets each write sweep a few of the soonest-expired
 * entries in O(log n), so memory stays bounded by the live set and the cost
 * of a write does not grow with it.
 */
export class ExpiringMap<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();
  readonly #heap: Expiry<K>[] = [];
  readonly #limit: number;

  /** `limit`: most entries kept; a write past it lets the soonest-expiring live entry go. Default unbounded. */
  constructor(options: { readonly limit?: number } = {}) {
    this.#limit = options.limit ?? Number.POSITIVE_INFINITY;
  }

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
    this.#entries.set(key, { value, expiresAt });
    this.#push({ key, expiresAt });
    this.sweep(now, 4);
    while (this.#entries.size > this.#limit) this.#evictSoonest();
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  /** Removes up to `limit` expired entries, soonest-expired first; returns how many. */
  sweep(now: number, limit = Number.POSITIVE_INFINITY): number {
    let removed = 0;
    for (let popped = 0; popped < limit; popped++) {
      const top = this.#heap[0];
      if (!top || top.expiresAt > now) break;
      this.#pop();
      // The heap may hold stale expiries of keys set again since; only the current one counts.
      const entry = this.#entries.get(top.key);
      if (entry && entry.expiresAt === top.expiresAt) {
        this.#entries.delete(top.key);
        removed++;
      }
    }
    return removed;
  }

  /** Drops the live entry that expires first (stale heap items of keys set again are skipped). */
  #evictSoonest(): void {
    for (let top = this.#heap[0]; top; top = this.#heap[0]) {
      this.#pop();
      const entry = this.#entries.get(top.key);
      if (entry && entry.expiresAt === top.expiresAt) {
        this.#entries.delete(top.key);
        return;
      }
    }
  }

  values(now: number): V[] {
    return [...this.#entries.values()].filter((e) => e.expiresAt > now).map((e) => e.value);
  }

  #push(item: Expiry<K>): void {
    const heap = this.#heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.expiresAt <= item.expiresAt) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
  }

  #pop(): void {
    const heap = this.#heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && heap[right]!.expiresAt < heap[left]!.expiresAt ? right : left;
      if (heap[child]!.expiresAt >= last.expiresAt) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }
}
