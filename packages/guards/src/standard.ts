import {
  type AdmissionGuard,
  type ClaimGuard,
  ConfigurationError,
  type Guard,
  type OutputGuard,
  type OutwardGuard,
  type PendingActionStore,
  type RateBucketStore,
  type RateGuard,
  type ReplayStore,
  type VisibilityGuard,
} from '@gatehousejs/core';
import { batchCountGuard } from './batchCount.js';
import { type ConfirmGuardOptions, confirmGuard } from './confirm.js';
import { duplicateGuard } from './duplicate.js';
import { killSwitchGuards, type SwitchReader } from './killSwitch.js';
import { type RateGuardOptions, rateGuard } from './rate.js';
import { type ReplayGuardOptions, replayGuard } from './replay.js';
import { rightsGuard } from './rights.js';
import { type TenantGuardOptions, tenantGuard } from './tenant.js';
import { untrustedTextGuard } from './untrustedText.js';
import { versionGuard } from './version.js';

/** The stores {@link standardGuards} builds on: what `createSqliteStores`, `createPostgresStores` or memory stores give. */
export interface StandardStores {
  readonly replay: ReplayStore;
  readonly pendingActions: PendingActionStore;
  readonly rateBuckets: RateBucketStore;
}

/**
 * Options of {@link standardGuards}. Each guard's options tune the built-in
 * one; a guard object of the same kind replaces it (the team's own replay
 * store protocol, its own rate limiter).
 */
export interface StandardGuardsOptions<TRight extends string = string> {
  /** Where the kill switches are read (I6): `createSwitches(…)` of `@gatehousejs/access`. */
  readonly switches: SwitchReader;
  /** `Retry-After` while the global kill switch is on; default 300 seconds. */
  readonly retryAfterSeconds?: number;
  readonly tenant?: TenantGuardOptions | VisibilityGuard<TRight>;
  readonly rights?: VisibilityGuard<TRight>;
  readonly rate?: Omit<RateGuardOptions, 'store'> | RateGuard;
  readonly replay?: Omit<ReplayGuardOptions, 'store'> | ClaimGuard;
  readonly confirm?: Omit<ConfirmGuardOptions<TRight>, 'store'> | OutwardGuard<TRight>;
  readonly output?: OutputGuard;
}

const isGuard = (value: unknown): value is Guard => typeof (value as { kind?: unknown } | undefined)?.kind === 'string';

/** The built-in guard from `given` options, or `given` itself when it is a guard of that kind (and duty). */
function pick<TGuard extends Guard, TOptions>(
  given: TGuard | TOptions | undefined,
  slot: { readonly kind: Guard['kind']; readonly what: string; readonly duty?: string },
  build: (options: TOptions | undefined) => TGuard,
): TGuard {
  if (!isGuard(given)) return build(given as TOptions | undefined);
  const duty = (given as { duty?: string }).duty;
  if (given.kind !== slot.kind || (slot.duty !== undefined && duty !== slot.duty)) {
    const needs = slot.duty ? `a ${slot.kind} guard with duty '${slot.duty}'` : `a ${slot.kind} guard`;
    throw new ConfigurationError(`standardGuards: ${slot.what} must be ${needs}, or its options.`);
  }
  return given as TGuard;
}

/**
 * Every guard a server needs, in one line: the tenant binding (I3), live
 * rights (I4, I7), both kill switches (I6), rate buckets per connection and
 * effect class (I7), replay protection (I10), the two-step confirm with
 * person approval (I9), and output cleaning (I16). Add the team's own
 * guards beside them; pass options (or a guard of the same kind) to tune or
 * replace one.
 *
 * @example
 * createServer({ …, guards: standardGuards(stores, { switches, confirm: { approval } }) });
 */
export function standardGuards<TRight extends string = string>(
  stores: StandardStores,
  options: StandardGuardsOptions<TRight>,
): readonly Guard<TRight>[] {
  if (typeof stores !== 'object' || stores === null)
    throw new ConfigurationError('standardGuards: stores must give replay, pendingActions and rateBuckets.');
  if (typeof options?.switches !== 'object' || options.switches === null)
    throw new ConfigurationError('standardGuards: switches is required (createSwitches of @gatehousejs/access).');
  const switches: readonly [AdmissionGuard, VisibilityGuard] = killSwitchGuards({
    switches: options.switches,
    ...(options.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: options.retryAfterSeconds }),
  });
  return Object.freeze([
    pick<VisibilityGuard<TRight>, TenantGuardOptions>(
      options.tenant,
      { kind: 'visibility', what: 'tenant', duty: 'tenant' },
      (o) => tenantGuard(o),
    ),
    pick(options.rights, { kind: 'visibility', what: 'rights', duty: 'rights' }, () => rightsGuard()),
    ...switches,
    pick(options.rate, { kind: 'rate', what: 'rate' }, (o) => rateGuard({ ...o, store: stores.rateBuckets })),
    pick(options.replay, { kind: 'claim', what: 'replay' }, (o) => replayGuard({ ...o, store: stores.replay })),
    pick(options.confirm, { kind: 'outward', what: 'confirm' }, (o) =>
      confirmGuard<TRight>({ ...o, store: stores.pendingActions }),
    ),
    pick(options.output, { kind: 'output', what: 'output' }, () => untrustedTextGuard()),
  ] as readonly Guard<TRight>[]);
}

/**
 * The guard factories a tool's `guards: (g) => […]` calls by name, typed by
 * the tool: bind them once with `createGatehouse({ toolGuards })`, then
 * `g.version({ field: 'version', … })` checks `field` against the tool's input.
 */
export const toolGuards = Object.freeze({
  version: versionGuard,
  batchCount: batchCountGuard,
  duplicate: duplicateGuard,
});
