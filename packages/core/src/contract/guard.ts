import type { AdmissionRefusal, AdmissionRequest, Connection } from '../context.js';
import type { Effect } from '../effects.js';
import { ConfigurationError } from '../errors.js';
import type { JsonObject } from '../json.js';
import type { ApprovalOptions } from './approval.js';
import type {
  BuildContext,
  CallGuardContext,
  GuardArguments,
  GuardedTool,
  ToolCall,
  UnitGuardContext,
} from './call.js';
import type { Allowed, Decision, Refusal } from './decision.js';
import type { ClaimedAction, PendingAction, PendingActionUpdate, PendingStatus } from './pending.js';

/**
 * The stages a guard can run in, in the order core runs them. Core owns the
 * order; a guard names its kind, never a position in a list.
 */
export const GUARD_KINDS = [
  'admission',
  'visibility',
  'rate',
  'call',
  'claim',
  'unit',
  'outward',
  'output',
] as const;

/** One of {@link GUARD_KINDS}. */
export type GuardKind = (typeof GUARD_KINDS)[number];

/**
 * A duty core requires of every server, fulfilled by a guard that says so:
 * the tenant binding (I3), live rights (I4), and the kill switches (I6), at
 * admission and per tenant. Claim, outward and output duties are their kinds.
 */
export type GuardDuty = 'tenant' | 'rights' | 'killSwitch' | 'tenantSwitch';

/** How long a claim a guard holds lasts, and how often its holder renews it. */
export interface Lease {
  readonly leaseMs: number;
  readonly renewMs: number;
}

interface GuardBase<TKind extends GuardKind> {
  /** The stage the guard runs in. */
  readonly kind: TKind;
  /** Names the guard in stack traces, logs, spans and docs. */
  readonly name: string;
}

/** What a tool-level guard (call, unit) may declare besides its check. */
interface ToolGuardBase<TKind extends 'call' | 'unit'> extends GuardBase<TKind> {
  /** The effect classes the guard applies to when installed server-wide; all when absent. */
  readonly effects?: readonly Effect[] | undefined;
  /** Arguments this guard adds to the advertised input of the tools it guards. */
  readonly arguments?: GuardArguments | undefined;
  /**
   * Checks, when the server is built, that the guarded tool fits (e.g. an
   * update tool requires `version`); throws a `ConfigurationError`.
   */
  readonly verify?:
    | ((tool: GuardedTool, tools: ReadonlyMap<string, GuardedTool>, build: BuildContext) => void)
    | undefined;
}

/** An admission guard's answer: in, or the HTTP status to refuse with (503 + `Retry-After`, 403, 401). */
export type AdmissionDecision = { readonly ok: true } | ({ readonly ok: false } & AdmissionRefusal);

/**
 * Runs on every request, on its headers, before credentials and before the
 * body is read (the global kill switch: 503). A guard that throws or does
 * not answer in time is an outage: 503 with `Retry-After`, naming no cause.
 */
export interface AdmissionGuard extends GuardBase<'admission'> {
  readonly duty?: 'killSwitch' | undefined;
  admit(request: AdmissionRequest): AdmissionDecision | Promise<AdmissionDecision>;
}

/** Whether a visibility guard decides for `tools/list` or for a `tools/call`. */
export type VisibilityPurpose = 'list' | 'call';

/**
 * Decides who sees and may call a tool (I3, I4, I6, I7): `tools/list` shows
 * exactly the tools `tools/call` would not refuse as hidden, from the same
 * decisions. `connection` runs once per request (a refusal hides every
 * tool); `tool` runs per tool. A `connection` check that throws is an
 * outage (`store_unavailable`, nothing listed).
 */
export interface VisibilityGuard<TRight extends string = string> extends GuardBase<'visibility'> {
  readonly duty?: 'tenant' | 'rights' | 'tenantSwitch' | undefined;
  connection?(connection: Connection<TRight>): Decision | Promise<Decision>;
  tool?(
    tool: GuardedTool,
    connection: Connection<TRight>,
    purpose: VisibilityPurpose,
  ): Decision | Promise<Decision>;
  /** Checks each tool when the server is built (the tenant guard refuses tenant-like arguments, I3). */
  verify?(tool: GuardedTool, tools: ReadonlyMap<string, GuardedTool>, build: BuildContext): void;
}

/**
 * Takes one token per call from the bucket of the call's connection and
 * effect class, before any argument work (I7); gives it back when the call
 * is answered without running (a replay). A store that fails refuses.
 */
export interface RateGuard<TToken = unknown> extends GuardBase<'rate'> {
  /** `now` is the server's clock, in ms since the epoch. */
  take(connection: Connection, bucket: Effect, now: number): Promise<Decision<{ readonly token: TToken }>>;
  /** Never throws. */
  refund(token: TToken, now: number): Promise<void>;
}

/** A stateless check after the arguments are read, before the replay claim. */
export interface CallGuard<TInput = unknown, TContext extends object = object> extends ToolGuardBase<'call'> {
  check(context: CallGuardContext<TInput>): Decision<TContext> | Promise<Decision<TContext>>;
}

/** What the claim stage decided: run holding the claim, answer with the stored result, or refuse. */
export type ClaimDecision<TClaim> =
  | Allowed<{ readonly claim: TClaim }>
  | Allowed<{ readonly replayed: JsonObject }>
  | Refusal;

/**
 * Replay protection of every write and confirmation (I10): claims the
 * call's fingerprint, committed on its own, with a lease and a fencing
 * token; `complete` keeps the result inside the unit of work only while
 * the claim is current. What to do on each answer is core's.
 */
export interface ClaimGuard<TClaim = unknown> extends GuardBase<'claim'> {
  /** Arguments the claim adds to writes and `confirm_action` (`idempotency_key`). */
  readonly arguments?: GuardArguments | undefined;
  /** The claim's lease: core checks it outlasts a renewal plus the unit of work's longest wait. */
  readonly lease: Lease;
  /** `clock` is the server's, in ms since the epoch (a claim that waits for an identical call polls it). */
  claim(call: ToolCall, clock: () => number): Promise<ClaimDecision<TClaim>>;
  /** Renews the claim while the call runs; returns the function that stops it. */
  keepAlive(claim: TClaim, clock: () => number): () => void;
  /** Inside the unit of work: keeps the presented result; false when the claim is no longer the call's. */
  complete(claim: TClaim, result: JsonObject, unit: unknown, now: number): Promise<boolean>;
  /** Whether the claim is still the call's (never throws; an unknown answer is true). */
  held(claim: TClaim): Promise<boolean>;
  /** Forgets the claim so a retry runs; never throws, never frees a newer claim. */
  release(claim: TClaim): Promise<void>;
}

/**
 * A check-then-act guard (version, batch count, duplicate): runs inside the
 * unit of work, on the unit's own services, right before the tool runs, so
 * its check and the write commit together. Only on write and outward tools;
 * on an outward tool it also runs, read-only, before the preview.
 */
export interface UnitGuard<TInput = unknown, TServices = unknown, TContext extends object = object>
  extends ToolGuardBase<'unit'> {
  /** Marks a tool's duplicate-create guard (I11), naming its sibling update tool. */
  readonly creates?: { readonly updateTool: string } | undefined;
  check(context: UnitGuardContext<TInput, TServices>): Decision<TContext> | Promise<Decision<TContext>>;
}

/** What the outward stage stores for a prepared call: everything but what the guard assigns. */
export type PendingDraft = Omit<PendingAction, 'id' | 'tokenHash' | 'status' | 'createdAt' | 'expiresAt'>;

/**
 * The two-step flow's bookkeeping (I9): turns a prepared outward call into
 * a pending action with a one-time confirm token, finds it again by token,
 * claims it for one confirmation under a lease, and marks it. Which
 * refusal kills a token and which keeps it is core's table, not the
 * guard's; a guard that fails is an outage, and an outage kills nothing.
 */
export interface OutwardGuard<TRight extends string = string> extends GuardBase<'outward'> {
  /** How long a preview can be confirmed, in ms. */
  readonly ttlMs: number;
  /** A confirmation's claim on its action. */
  readonly lease: Lease;
  /** Approval by a person (I9), when the guard offers it. */
  readonly approval?: ApprovalOptions<TRight> | undefined;
  /** Stores a new pending action; returns it and its confirm token (only the token's hash is stored). */
  open(draft: PendingDraft, now: number): Promise<{ readonly action: PendingAction; readonly token: string }>;
  find(token: string): Promise<PendingAction | undefined>;
  /** Claims `action` from one of `from` under a lease (a lapsed claim is taken over); nothing when another holds it. */
  claim(
    action: PendingAction,
    from: readonly PendingStatus[],
    now: number,
  ): Promise<ClaimedAction | undefined>;
  keepAlive(action: ClaimedAction, clock: () => number): () => void;
  /** Moves `action` from one of `from` to `to`, inside `unit` when given; fenced to a claim by `set.fence`. */
  mark(
    action: PendingAction,
    from: readonly PendingStatus[],
    to: PendingStatus,
    options?: { readonly unit?: unknown; readonly set?: PendingActionUpdate },
  ): Promise<boolean>;
  /** Needed for approval by a person. */
  findById?(id: string): Promise<PendingAction | undefined>;
  listAwaitingApproval?(tenantId: string, now: number, limit: number): Promise<readonly PendingAction[]>;
}

/**
 * Sees every structured result that leaves (results, previews, errors):
 * returns the copy that may leave (every string cleaned, I16), or a
 * refusal when the result breaks a rule it holds (the call then answers
 * `internal_error`: it is a server defect). Synchronous: no I/O on the way out.
 */
export interface OutputGuard extends GuardBase<'output'> {
  leave(structured: JsonObject, tool: string): Decision<{ readonly structured: JsonObject }>;
}

/** A guard a tool may carry itself: stateless or check-then-act, typed by its input and the host's services. */
export type ToolGuard<TInput = unknown, TServices = unknown> =
  | CallGuard<TInput, object>
  | UnitGuard<TInput, TServices, object>;

/** Any guard, of any kind: what `createServer({ guards })` takes. */
export type Guard<TRight extends string = string> =
  | AdmissionGuard
  | VisibilityGuard<TRight>
  // biome-ignore lint/suspicious/noExplicitAny: a server-wide guard sees every tool's input and any token or claim
  | RateGuard<any>
  | ToolGuard
  // biome-ignore lint/suspicious/noExplicitAny: a server-wide guard sees every tool's input and any token or claim
  | ClaimGuard<any>
  | OutwardGuard<TRight>
  | OutputGuard;

/** The methods each kind must have, checked by {@link defineGuard} and at build. */
const METHODS: { readonly [K in GuardKind]: readonly string[] } = {
  admission: ['admit'],
  visibility: [],
  rate: ['take', 'refund'],
  call: ['check'],
  claim: ['claim', 'keepAlive', 'complete', 'held', 'release'],
  unit: ['check'],
  outward: ['open', 'find', 'claim', 'keepAlive', 'mark'],
  output: ['leave'],
};

const OPTIONAL_METHODS = ['verify', 'connection', 'tool', 'findById', 'listAwaitingApproval'] as const;

/**
 * Checks that `value` is a guard of a known kind with its methods; throws a
 * `ConfigurationError` naming what is wrong. Core calls it on every guard a
 * server is built with, so a plain-JavaScript guard is checked too.
 */
export function checkGuard(value: unknown, where = 'A guard'): asserts value is Guard {
  const guard = value as Partial<Record<string, unknown>> | undefined;
  if (typeof guard !== 'object' || guard === null)
    throw new ConfigurationError(`${where} must be a guard object.`);
  const name = guard.name;
  if (typeof name !== 'string' || name === '')
    throw new ConfigurationError(`${where} needs a non-empty name.`);
  const kind = guard.kind as GuardKind;
  if (!GUARD_KINDS.includes(kind)) {
    const hint =
      'stage' in guard || 'gate' in guard
        ? ' (guards now name their kind; see the migration in the guards docs)'
        : '';
    throw new ConfigurationError(`Guard ${name}: kind must be one of ${GUARD_KINDS.join(', ')}${hint}.`);
  }
  for (const method of METHODS[kind]) {
    if (typeof guard[method] !== 'function')
      throw new ConfigurationError(`Guard ${name}: a ${kind} guard needs ${method}().`);
  }
  for (const method of OPTIONAL_METHODS) {
    if (guard[method] !== undefined && typeof guard[method] !== 'function')
      throw new ConfigurationError(`Guard ${name}: ${method} must be a function.`);
  }
  if (kind === 'visibility' && guard.connection === undefined && guard.tool === undefined)
    throw new ConfigurationError(`Guard ${name}: a visibility guard needs connection() or tool(), or both.`);
}

/**
 * Declares a guard, checking its shape up front, and freezes it. A `call`
 * or `unit` guard may name the tool input and services it expects as type
 * arguments; inside a tool's `guards: (g) => […]`, `g.define` takes them
 * from the tool instead.
 *
 * @example
 * const businessHours = defineGuard({ kind: 'call', name: 'businessHours', effects: ['notify'], check: ({ now }) => … });
 */
export function defineGuard<TInput = unknown, TServices = unknown, TContext extends object = object>(
  guard: CallGuard<TInput, TContext>,
): CallGuard<TInput, TContext>;
export function defineGuard<TInput = unknown, TServices = unknown, TContext extends object = object>(
  guard: UnitGuard<TInput, TServices, TContext>,
): UnitGuard<TInput, TServices, TContext>;
export function defineGuard<TGuard extends Guard>(guard: TGuard): TGuard;
export function defineGuard(guard: Guard): Guard {
  checkGuard(guard, 'defineGuard');
  return Object.freeze({ ...guard });
}
