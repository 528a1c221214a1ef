/**
 * Test servers' guards. Most tests build a server on memory stores with the
 * policy they exercise written as it reads (`replay: { store }`,
 * `confirm: { store }`, `rate: { store }`, a kill switch's reader): this
 * turns that into the guard list `createServer({ guards })` takes, on the
 * real factories of `@gatehousejs/guards`, so every test server runs the
 * same stages a product's does. A test of one guard builds its list by hand.
 */
import {
  type AdmissionGuard,
  type AdmissionRefusal,
  type AdmissionRequest,
  ALLOW,
  type ApprovalOptions,
  type Connection,
  deny,
  type Guard,
  type GuardedTool,
  type ServerOptions,
  type VisibilityGuard,
} from '@gatehousejs/core';
import {
  type ConfirmGuardOptions,
  confirmGuard,
  killSwitchGuards,
  type RateGuardOptions,
  type ReplayGuardOptions,
  rateGuard,
  replayGuard,
  rightsGuard,
  type SwitchReader,
  tenantGuard,
  untrustedTextGuard,
} from '@gatehousejs/guards';

/** A rule that hides a tool from a connection, as a test writes it: the reason and fix, or nothing. */
export type HideRule = (
  tool: GuardedTool,
  connection: Connection,
) =>
  | { readonly reason: string; readonly fix: string }
  | undefined
  | Promise<{ readonly reason: string; readonly fix: string } | undefined>;

/** A visibility guard from a test's rule: a hidden tool is refused `tool_hidden` with its reason. */
export function visibilityOf(rule: HideRule, name: string): VisibilityGuard {
  return {
    kind: 'visibility',
    name,
    async tool(tool, connection) {
      const hidden = await rule(tool, connection);
      if (!hidden) return ALLOW;
      return deny({
        code: 'tool_hidden',
        message: `${tool.name} is hidden: ${hidden.reason}`,
        fix: hidden.fix,
        details: { tool: tool.name },
      });
    },
  };
}

/** A check at admission as a test writes it: a refusal, or nothing. */
export type AdmissionCheck = (
  request: AdmissionRequest,
) => Promise<AdmissionRefusal | undefined> | AdmissionRefusal | undefined;

/** The policy of a test server, besides its own guards. */
export interface TestPolicy<TRight extends string = string> {
  readonly replay?: ReplayGuardOptions;
  readonly confirm?: ConfirmGuardOptions<TRight>;
  readonly approval?: ApprovalOptions<TRight>;
  readonly rate?: RateGuardOptions;
  /** Checks at admission, before the kill switch. */
  readonly admission?: readonly AdmissionCheck[];
  /** Rules that hide tools, as visibility guards. */
  readonly visibility?: readonly (HideRule | VisibilityGuard)[];
  /** Where the kill switches are read; default: both off. */
  readonly switches?: SwitchReader;
  /** The test's own guards, of any kind. */
  readonly guards?: readonly Guard[];
}

/** Kill switches that are never on. */
export const SWITCHES_OFF: SwitchReader = Object.freeze({
  isGlobalOn: async () => false,
  tenantAccess: async () => true,
});

/** An admission guard from a test's check. */
export function admissionOf(check: AdmissionCheck, name: string): AdmissionGuard {
  return {
    kind: 'admission',
    name,
    async admit(request) {
      const refusal = await check(request);
      return refusal ? { ok: false, ...refusal } : ALLOW;
    },
  };
}

/** The guards of a test server: the standard duties, the stages its policy names, then its own guards. */
export function testGuards<TRight extends string>(policy: TestPolicy<TRight> = {}): Guard[] {
  const own = policy.guards ?? [];
  const has = (duty: string) => own.some((g) => (g as { duty?: string }).duty === duty);
  const switches = killSwitchGuards({ switches: policy.switches ?? SWITCHES_OFF });
  return [
    ...(policy.admission ?? []).map((check, i) => admissionOf(check, `admission ${i + 1}`)),
    ...(has('tenant') ? [] : [tenantGuard()]),
    ...(has('rights') ? [] : [rightsGuard()]),
    ...(has('killSwitch') ? [] : [switches[0]]),
    ...(has('tenantSwitch') ? [] : [switches[1] as VisibilityGuard]),
    ...(policy.rate ? [rateGuard(policy.rate)] : []),
    ...(policy.replay ? [replayGuard(policy.replay)] : []),
    ...(policy.confirm || policy.approval
      ? [
          confirmGuard<TRight>({
            ...(policy.confirm as ConfirmGuardOptions<TRight>),
            approval: policy.approval,
          }),
        ]
      : []),
    ...(own.some((g) => g.kind === 'output') ? [] : [untrustedTextGuard()]),
    ...(policy.visibility ?? []).map((rule, i) =>
      typeof rule === 'function' ? visibilityOf(rule, `visibility ${i + 1}`) : rule,
    ),
    ...own,
  ] as Guard[];
}

/**
 * A test server's options with its policy turned into guards: `replay`,
 * `confirm`, `approval`, `rate`, `admission`, `switches` and its own `guards`
 * become `guards` (see {@link testGuards}).
 */
export function withGuards<TRight extends string, TServices, THandle = unknown>(
  options: Omit<ServerOptions<TRight, TServices, THandle>, 'guards'> & TestPolicy<TRight>,
): ServerOptions<TRight, TServices, THandle> {
  const { replay, confirm, approval, rate, admission, switches, guards, visibility, ...rest } = options;
  const policy = { replay, confirm, approval, rate, admission, switches, guards, visibility };
  return { ...rest, guards: testGuards<TRight>(policy) };
}
