import { ConfigurationError } from '@gatehousejs/core';

/** A person's current standing in a tenant, as the host's own data says now. */
export interface Standing<TRight extends string = string> {
  readonly active: boolean;
  readonly rights: Iterable<TRight>;
}

/**
 * Where live rights come from (I4): the host's people/roles data. Asked on
 * every request; `undefined` means the person is no longer in the tenant.
 */
export interface PeopleSource<TRight extends string = string> {
  current(tenantId: string, personId: string): Promise<Standing<TRight> | undefined>;
}

/**
 * Caches a people source for `ttlMs`. **This weakens I4**: a removed role or
 * a deactivated person keeps working for up to `ttlMs`. Use it only where
 * the host's own data cannot be read on every request, and keep the TTL short.
 */
export function cachedPeople<TRight extends string>(
  source: PeopleSource<TRight>,
  options: {
    readonly ttlMs: number;
    /** The clock the TTL runs on; default the system time. Tests pin it. */
    readonly clock?: () => Date;
  },
): PeopleSource<TRight> {
  if (!Number.isFinite(options.ttlMs) || options.ttlMs <= 0) {
    throw new ConfigurationError('cachedPeople: ttlMs must be a positive number of milliseconds.');
  }
  const clock = options.clock ?? (() => new Date());
  const cache = new Map<string, { at: number; standing: Standing<TRight> | undefined }>();
  return {
    async current(tenantId, personId) {
      const key = `${tenantId}\u0000${personId}`;
      const hit = cache.get(key);
      if (hit && clock().getTime() - hit.at < options.ttlMs) return hit.standing;
      const found = await source.current(tenantId, personId);
      const standing = found && { active: found.active, rights: [...found.rights] };
      cache.set(key, { at: clock().getTime(), standing });
      return standing;
    },
  };
}
