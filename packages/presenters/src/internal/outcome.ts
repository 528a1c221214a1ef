/** A check's outcome: the value, or a message written for the caller. */
export type Outcome<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly message: string };

/** A failed outcome. */
export function fail(message: string): Outcome<never> {
  return { ok: false, message };
}

/**
 * Quotes caller text for a message as a JSON string, clipped so the quoted
 * form holds at most `max` characters between the quotes (escapes counted,
 * so control characters cannot stretch it) plus an ellipsis when cut.
 */
export function quote(text: string, max = 64): string {
  let shown = '';
  for (const char of text) {
    const piece = JSON.stringify(char).slice(1, -1);
    if (shown.length + piece.length > max) return `"${shown}…"`;
    shown += piece;
  }
  return `"${shown}"`;
}
