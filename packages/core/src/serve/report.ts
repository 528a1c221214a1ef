/** Hands an unexpected error to a reporting callback; a throwing callback changes nothing. */
export function reportTo(onerror: ((error: Error) => void) | undefined, error: unknown): void {
  try {
    onerror?.(error instanceof Error ? error : new Error(String(error)));
  } catch {
    // reporting only
  }
}
