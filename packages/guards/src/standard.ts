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

/**
 * The stores {@link standardGuards} builds on: what `createSqliteStores` or
 * `createPostgresStores` give. A guard whose store is absent is left out (a
 * read-only server needs no replay or pending-action store); `createServer`
 * then refuses any tool that needs it, naming the factory.
 */
export interface StandardStores {
  readonly replay?: ReplayStore | undefined;
  readonly pendingActions?: PendingActionStore | undefined;
  readonly rateBuckets?: RateBucketStore | undefined;
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

const isGuard = (value: unknown): value is Guard =>
  typeof (value as { kind?: unknown } | undefined)?.kind === 'string';

/** The built-in guard from `given` options, or `given` itself when it is a guard of that kind (and duty). */
function pick<TGuard extends Guard, TOptions>(
  given: TGuard | TOptions | undefined,
  slot: { readonly kind: Guard['kind']; readonly what: string; readonly duty?: string },
  build: (options: TOptions | undefined) => TGuard,
): TGuard {
  if (!isGuard(given)) return build(given as TOptions | undefined);
  return checkedGuard(given, slot);
}

/** `given` as the guard of a slot; a guard of another kind or duty is refused. */
function checkedGuard<TGuard extends Guard>(
  given: Guard,
  slot: { readonly kind: Guard['kind']; readonly what: string; readonly duty?: string },
): TGuard {
  const duty = (given as { duty?: string }).duty;
  if (given.kind !== slot.kind || (slot.duty !== undefined && duty !== slot.duty)) {
    const needs = slot.duty ? `a ${slot.kind} guard with duty '${slot.duty}'` : `a ${slot.kind} guard`;
    throw new ConfigurationError(`standardGuards: ${slot.what} must be ${needs}, or its options.`);
  }
  return given as TGuard;
}

/**
 * A guard built on a store, or the replacement given; nothing when there is
 * neither a store nor a replacement. Options without their store are refused.
 */
function stored<TGuard extends Guard, TOptions extends object, TStore>(
  given: TGuard | TOptions | undefined,
  store: TStore | undefined,
  slot: { readonly kind: Guard['kind']; readonly what: string; readonly store: string },
  build: (options: TOptions | undefined, store: TStore) => TGuard,
): TGuard[] {
  if (isGuard(given)) return [checkedGuard<TGuard>(given, slot)];
  if (store !== undefined) return [build(given as TOptions | undefined, store)];
  if (given !== undefined)
    throw new ConfigurationError(`standardGuards: ${slot.what} options need stores.${slot.store}.`);
  return [];
}

/**
 * Every guard a server needs, in one line: the tenant binding (I3), live
 * rights (I4, I7), both kill switches (I6), rate buckets per connection and
 * effect class (I7), replay protection (I10), the two-step confirm with
 * person approval (I9), and output cleaning (I16). Add the team's own
 * guards beside them; pass options (or a guard of the same kind) to tune or
 * replace one. The rate, replay and confirm guards are built on their
 * stores and left out without them: a read-only server passes none.
 *
 * @example
 * createServer({ …, guards: standardGuards(stores, { switches, confirm: { approval } }) });
 */
export function standardGuards<TRight extends string = string>(
  stores: StandardStores,
  options: StandardGuardsOptions<TRight>,
): readonly Guard<TRight>[] {
  if (typeof stores !== 'object' || stores === null)
    throw new ConfigurationError(
      'standardGuards: stores must be an object (replay, pendingActions, rateBuckets).',
    );
  if (typeof options?.switches !== 'object' || options.switches === null)
    throw new ConfigurationError(
      'standardGuards: switches is required (createSwitches of @gatehousejs/access).',
    );
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
    ...stored(
      options.rate,
      stores.rateBuckets,
      { kind: 'rate', what: 'rate', store: 'rateBuckets' },
      (o, store) => rateGuard({ ...o, store }),
    ),
    ...stored(options.replay, stores.replay, { kind: 'claim', what: 'replay', store: 'replay' }, (o, store) =>
      replayGuard({ ...o, store }),
    ),
    ...stored(
      options.confirm,
      stores.pendingActions,
      { kind: 'outward', what: 'confirm', store: 'pendingActions' },
      (o, store) => confirmGuard<TRight>({ ...o, store }),
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
