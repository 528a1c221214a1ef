import { DEFAULT_INSTRUCTION_PATTERNS } from '@gatehousejs/core';
import { isPlainObject } from '../internal/jsonRpc.js';

/** A tool as the description lint reads it: what `tools/list` shows. */
export interface DescribedTool {
  readonly name: string;
  readonly description: string;
  readonly title?: string | undefined;
  readonly inputSchema: unknown;
}

/** True when text keeps a control (other than newline and tab), format (bidi, zero-width) or lone surrogate character. */
export function keepsHiddenCharacters(text: string): boolean {
  return /\p{Cf}|\p{Cs}/u.test(text) || /\p{Cc}/u.test(text.replace(/[\n\t]/g, ''));
}

/** Every `description` string inside a JSON schema, at any depth. */
export function descriptionsIn(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(descriptionsIn);
  if (!isPlainObject(schema)) return [];
  return Object.entries(schema).flatMap(([key, value]) =>
    key === 'description' && typeof value === 'string' ? [value] : descriptionsIn(value),
  );
}

const clip = (text: string) => (text.length > 120 ? `${text.slice(0, 120)}…` : text);

/** `text` with hidden characters shown as `<U+XXXX>`, so a finding names what it found. */
function visible(text: string): string {
  return text.replace(/[\p{Cf}\p{Cs}]|(?![\n\t])\p{Cc}/gu, (c) => {
    return `<U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words that turn a mention of another tool into steering it ("before using X", "instead of X", "when calling X, also …"). */
const STEERING =
  /\b(when|whenever|before|after|instead|rather than|do not|don't|never|always|must|should|only|also)\b/i;

/** The sentences of `text` (split at `.`, `!`, `?` or a line break followed by space). */
const sentencesOf = (text: string) => text.split(/(?<=[.!?])\s+|\n+/);

/**
 * What is wrong with a tool's texts (I16): its description, title and every
 * argument description must describe the tool. Each match of core's
 * instruction patterns, each hidden character (controls, bidi marks, zero-width
 * and tag characters) and each sentence that names another tool of the
 * server with a steering word (`when`, `before`, `instead`, `always`, `must`,
 * …: tool shadowing) is one finding, starting with the tool's name. Naming
 * another tool as where a value comes from ("as last read (get_booking)") is fine.
 *
 * @example
 * descriptionFindings({ name: 'find', description: 'Always call find first.', inputSchema: {} }, []);
 */
export function descriptionFindings(tool: DescribedTool, otherTools: readonly string[]): string[] {
  const texts = [tool.description, tool.title ?? '', ...descriptionsIn(tool.inputSchema)].filter(Boolean);
  const others = otherTools.filter((name) => name !== tool.name && name.length > 0);
  const findings: string[] = [];
  for (const text of texts) {
    const pattern = DEFAULT_INSTRUCTION_PATTERNS.find((p) => p.test(text));
    if (pattern) {
      findings.push(`${tool.name}: a description instructs the model (${pattern}): ${clip(text)}`);
    }
    if (keepsHiddenCharacters(text)) {
      findings.push(`${tool.name}: a description hides characters: ${clip(visible(text))}`);
    }
    const steering = sentencesOf(text).filter((sentence) => STEERING.test(sentence));
    const named = others.filter((name) => {
      const mention = new RegExp(`(^|[^\\w-])${escaped(name)}($|[^\\w-])`);
      return steering.some((sentence) => mention.test(sentence));
    });
    if (named.length > 0) {
      findings.push(`${tool.name}: a description steers another tool (${named.join(', ')}): ${clip(text)}`);
    }
  }
  return findings;
}
