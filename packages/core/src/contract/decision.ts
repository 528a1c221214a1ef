import type { ToolErrorInit } from '../errors.js';

/** A guard's "no": the refusal the model sees (I18), with `ok: false` as the discriminant. */
export type Refusal = { readonly ok: false } & ToolErrorInit;

/** A guard's "yes", with whatever typed context it hands to later stages and to `run`. */
export type Allowed<TContext extends object = object> = { readonly ok: true } & Readonly<TContext>;

/**
 * What every guard decides, in every stage: `{ ok: true, …context }` or
 * `{ ok: false, code, message, fix, next?, details? }`. One discriminant
 * everywhere a decision is made; core renders it, the guard never does.
 */
// Written as a conditional type so TypeScript compares two decisions by their
// structure: as a plain union it measures TContext as independent, and a
// guard handing on one context would pass for a guard handing on another.
export type Decision<TContext extends object = object> = [TContext] extends [object]
  ? Allowed<TContext> | Refusal
  : never;

/** The decision that lets a call go on and hands nothing on. */
export const ALLOW: Allowed = Object.freeze({ ok: true as const });

/**
 * Lets the call go on; `context` (if any) reaches later guards and the
 * tool's `run` as `context`, typed.
 *
 * @example
 * return allow({ booking }); // run({ context }) sees context.booking
 */
export function allow(): Allowed;
export function allow<TContext extends object>(context: TContext): Allowed<TContext>;
export function allow(context?: object): Allowed<object> {
  return context === undefined ? ALLOW : { ...context, ok: true };
}

/**
 * Refuses the call with a tool error (I18): the cause, the fix, and the
 * next call where there is one.
 *
 * @example
 * return deny({ code: 'conflict', message: 'Booking bk_1 has started.', fix: 'Create a follow-up booking.' });
 */
export function deny(error: ToolErrorInit): Refusal {
  return { ok: false, code: error.code, message: error.message, fix: error.fix, ...rest(error) };
}

const rest = (error: ToolErrorInit) => ({
  ...(error.next ? { next: error.next } : {}),
  ...(error.details ? { details: error.details } : {}),
});

/** The tool error of a refusal, without the discriminant. */
export function errorOf(refusal: ToolErrorInit): ToolErrorInit {
  return { code: refusal.code, message: refusal.message, fix: refusal.fix, ...rest(refusal) };
}

/** Whether `value` is a decision at all: plain JavaScript guards can return anything. */
export function isDecision(value: unknown): value is Decision {
  if (typeof value !== 'object' || value === null) return false;
  const ok = (value as { ok?: unknown }).ok;
  if (ok === true) return true;
  if (ok !== false) return false;
  const { code, message, fix } = value as Partial<ToolErrorInit>;
  return typeof code === 'string' && typeof message === 'string' && typeof fix === 'string';
}
