import { sanitizeText } from '@gatehousejs/presenters';

/** What the provider's error page shows: the error code and its description. */
export interface ProviderError {
  readonly error: string;
  readonly error_description?: string;
}

const escaped = (text: string) => sanitizeText(text).replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/**
 * The authorization server's plain error page: the error code and its
 * description (which may quote what a client sent), cleaned (I16) and
 * escaped, no script or remote style.
 */
export function providerErrorPage(out: ProviderError): string {
  return `<!doctype html><meta charset="utf-8"><title>Authorization failed</title><h1>Authorization failed</h1><p><code>${escaped(out.error)}</code></p><p>${escaped(out.error_description ?? '')}</p>`;
}
