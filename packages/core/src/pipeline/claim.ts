import type { ToolCall } from '../contract/call.js';
import { errorOf, isDecision } from '../contract/decision.js';
import type { ClaimGuard } from '../contract/guard.js';
import { type Outcome, refuse } from '../contract/outcome.js';
import { ToolError } from '../errors.js';
import type { JsonObject } from '../json.js';
import { GuardDefect } from './guardSet.js';

/** Thrown inside a unit of work when the call's claim was taken over; the unit rolls back. */
export class ClaimLost extends ToolError {
  constructor(tool: string) {
    super({
      code: 'store_unavailable',
      message: `${tool} ran longer than its replay lease and an identical call took over; nothing of this call was kept.`,
      fix: 'Retry the same call; it returns the result of the call that took over, or runs once.',
    });
  }
}

/** The claim a call holds while it runs, with the guard that gave it. */
export interface HeldClaim {
  readonly guard: ClaimGuard;
  readonly claim: unknown;
}

/** What the claim stage decided: run holding a claim, or answer without running. */
export type ClaimStep =
  | { readonly run: HeldClaim }
  | { readonly answer: Outcome; readonly replayed: boolean };

/**
 * Asks the claim guard for the call's fingerprint (I10): a claim to run
 * with, a stored result to answer with (`replayed: true`), or a refusal
 * (`still_running`, `idempotency_key_conflict`, an outage).
 */
export async function claimFor(guard: ClaimGuard, call: ToolCall, clock: () => number): Promise<ClaimStep> {
  const decision = await guard.claim(call, clock);
  if (!isDecision(decision)) throw new GuardDefect(guard.name);
  if (!decision.ok) return { answer: refuse(errorOf(decision)), replayed: false };
  if ('replayed' in decision)
    return {
      answer: { kind: 'result', data: decision.replayed as JsonObject, replayed: true },
      replayed: true,
    };
  return { run: { guard, claim: (decision as { readonly claim: unknown }).claim } };
}

/** Inside the unit of work: keeps the result under the claim, or rolls the unit back ({@link ClaimLost}). */
export async function completeClaim(
  held: HeldClaim,
  tool: string,
  kept: JsonObject,
  unit: unknown,
  now: number,
): Promise<void> {
  if (!(await held.guard.complete(held.claim, kept, unit, now))) throw new ClaimLost(tool);
}
