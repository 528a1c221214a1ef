/**
 * A function of a string key that builds each value once and keeps at most
 * `limit` of them, forgetting the oldest first: for objects that are costly
 * to build and are keyed by data (an `Intl` formatter per locale, zone or
 * currency), so a stream of distinct keys cannot grow memory. A `make` that
 * throws caches nothing.
 *
 * @example
 * const relative = boundedMemo(64, (locale) => new Intl.RelativeTimeFormat(locale));
 */
export function boundedMemo<V>(limit: number, make: (key: string) => V): (key: string) => V {
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError('boundedMemo: limit must be a positive integer.');
  const values = new Map<string, V>();
  return (key) => {
    const known = values.get(key);
    if (known !== undefined) return known;
    const made = make(key);
    if (values.size >= limit) values.delete(values.keys().next().value as string);
    values.set(key, made);
    return made;
  };
}

/** How many formatters of one kind a process keeps: every locale, zone or currency a server shows. */
export const FORMATTER_LIMIT = 256;
