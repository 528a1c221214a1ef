/** A check's outcome: the value, or a message written for the caller. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

/** A failed outcome. */
export function fail(message: string): Outcome<never> {
  return { ok: false, message };
}

/** Quotes caller text for a message, clipped so a message stays short. */
export function quote(text: string, max = 64): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
