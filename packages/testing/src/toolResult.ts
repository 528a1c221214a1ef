import { isPlainObject } from './internal/jsonRpc.js';

function preview(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/**
 * The text of a `tools/call` result: its `text` content items joined with newlines.
 *
 * Throws a `TypeError` showing what arrived when `result` is not an object with a `content`
 * array (for example `undefined` because the server answered with a JSON-RPC error), so a
 * failing assertion says why.
 *
 * @example
 * expect(toolResultText(reply.result)).toContain('bk_1');
 */
export function toolResultText(result: unknown): string {
  if (!isPlainObject(result) || !Array.isArray(result.content)) {
    throw new TypeError(`expected a tools/call result with a content array; got ${preview(result)}`);
  }
  return result.content
    .filter((item): item is { type: 'text'; text: string } => {
      return isPlainObject(item) && item.type === 'text' && typeof item.text === 'string';
    })
    .map((item) => item.text)
    .join('\n');
}

/**
 * The JSON object on the last line of a Gatehouse error text (`Error: …` lines ending in one
 * JSON line equal to `structuredContent`).
 *
 * Throws a `TypeError` when the text does not start with `Error:` or its last non-empty line is
 * not a JSON object.
 *
 * @example
 * expect(parseErrorJsonLine(toolResultText(reply.result)).code).toBe('not_found');
 */
export function parseErrorJsonLine(text: string): Record<string, unknown> {
  if (!text.startsWith('Error:')) {
    throw new TypeError(`expected text starting with "Error:"; got ${preview(text)}`);
  }
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const last = lines.at(-1) ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(last);
  } catch {
    throw new TypeError(`the last line of the error text is not JSON: ${preview(last)}`);
  }
  if (!isPlainObject(parsed)) {
    throw new TypeError(`the last line of the error text is not a JSON object: ${preview(last)}`);
  }
  return parsed;
}
