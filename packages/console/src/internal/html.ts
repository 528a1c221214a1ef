import { sanitizeText } from '@gatehousejs/presenters';
import { html as escapedHtml } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

/** Every interpolated string cleaned, arrays of them too; rendered HTML (already cleaned and escaped) as it is. */
function cleaned(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value);
  if (Array.isArray(value)) return value.map(cleaned);
  return value;
}

/**
 * The pages' `html` template tag: hono's (every interpolation escaped), with
 * every interpolated string first stripped of the characters that hide or
 * reorder text (I16 on pages: controls, bidi marks and overrides, invisible
 * format characters, the tag block), so a customer or client name carrying
 * U+202E cannot reverse the sentence around it on any page.
 */
export function html(
  strings: TemplateStringsArray,
  ...values: unknown[]
): HtmlEscapedString | Promise<HtmlEscapedString> {
  return escapedHtml(strings, ...values.map(cleaned));
}
