import { redactSecrets } from '../contract/envelope.js';
import type { JsonRpcError, JsonRpcMessage } from '../types.js';
import type { Evidence } from './types.js';

/** One request the scan sent and everything it observed of the answer. */
export interface Exchange {
  /** What was sent, in words (credentials never shown). */
  readonly request: string;
  /** The HTTP status; over stdio 200, or the status an admission refusal carries in its error data. */
  readonly status: number;
  /** Response headers, names lower-cased (none over stdio). */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw answer: the HTTP body, or over stdio the response line. */
  readonly text: string;
  readonly messages: readonly JsonRpcMessage[];
  /** The JSON-RPC result, when it is an object. */
  readonly result: Readonly<Record<string, unknown>> | undefined;
  readonly error: JsonRpcError | undefined;
  /** Set when nothing usable came back: a network error, a timeout, a process that ended. */
  readonly failure: string | undefined;
  /** How long the answer took. */
  readonly ms: number;
}

const SHOWN_HEADERS = ['www-authenticate', 'retry-after', 'content-type', 'content-length'];

const clipLine = (line: string, max = 240) =>
  line.length > max ? `${line.slice(0, max)}… (${line.length} characters)` : line;

/** The first `lines` lines of `text`, each clipped; says how much more there was. */
export function firstLines(text: string, lines = 3): string {
  const all = text.split(/\r?\n/).filter((line) => line.trim() !== '');
  const shown = all.slice(0, lines).map((line) => clipLine(line));
  if (all.length > lines) shown.push(`… ${all.length - lines} more line(s)`);
  return shown.join('\n');
}

/** `text` with control, format (bidi, zero-width) and lone surrogate characters shown as `\u{…}`, newlines and tabs kept. */
export function printable(text: string): string {
  return text.replace(
    /(?![\n\t])[\p{Cc}\p{Cf}\p{Cs}]/gu,
    (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`,
  );
}

/** Replaces every secret in `text` (the credentials given, and what {@link redactSecrets} finds) by a placeholder. */
export function maskSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (secret.length >= 4) masked = masked.split(secret).join('<credential>');
  }
  return printable(redactSecrets(masked));
}

/** The `data:` lines of an event stream, the events' ids and names left out. */
const sseData = (text: string) =>
  text
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .join('\n');

/** The answer of an exchange in a few lines: status, the headers that matter and the first lines of the body. */
export function describeAnswer(exchange: Exchange): string {
  if (exchange.failure !== undefined) return `no answer: ${clipLine(exchange.failure)}`;
  const head = [`HTTP ${exchange.status}`];
  for (const name of SHOWN_HEADERS) {
    const value = exchange.headers[name];
    if (value !== undefined && name !== 'content-type') head.push(`${name}: ${clipLine(value, 160)}`);
  }
  const sse = exchange.headers['content-type']?.toLowerCase().startsWith('text/event-stream') === true;
  const text = sse ? sseData(exchange.text) : exchange.text;
  const body = text.trim() === '' ? '(empty body)' : firstLines(text);
  return `${head.join('; ')}\n${body}`;
}

/** An exchange as evidence, with `secrets` masked in both halves. */
export function evidenceOf(exchange: Exchange, secrets: readonly string[]): Evidence {
  return {
    request: maskSecrets(exchange.request, secrets),
    answer: maskSecrets(describeAnswer(exchange), secrets),
  };
}

/** The text a refusal carries: a tool error's structured content and text, or a JSON-RPC error, or the body. */
export function refusalText(exchange: Exchange): string {
  if (exchange.result !== undefined) return JSON.stringify(exchange.result);
  if (exchange.error !== undefined) return JSON.stringify(exchange.error);
  return exchange.text;
}

/** True when the request was refused before any tool could run: an HTTP 4xx, a JSON-RPC error or a tool error. */
export function wasRefused(exchange: Exchange): boolean {
  if (exchange.failure !== undefined) return false;
  if (exchange.status >= 400 && exchange.status < 500) return true;
  return exchange.error !== undefined || exchange.result?.isError === true;
}

/** True for an answer that says the caller is rate-limited (HTTP 429, a `rate_limited` code, "too many requests"). */
export function isRateLimited(exchange: Exchange): boolean {
  if (exchange.status === 429) return true;
  const said = refusalText(exchange);
  return /rate[_ -]?limit|too many (requests|calls)/i.test(said) && wasRefused(exchange);
}

/** Short words for an exchange's outcome, for findings. */
export function describeOutcome(exchange: Exchange): string {
  if (exchange.failure !== undefined) return `no answer (${clipLine(exchange.failure, 120)})`;
  if (exchange.status !== 200 && exchange.status !== 202) return `HTTP ${exchange.status}`;
  if (exchange.error)
    return `JSON-RPC error ${exchange.error.code} (${clipLine(exchange.error.message, 120)})`;
  if (exchange.result?.isError === true) return 'a tool error';
  if (exchange.result !== undefined) return 'a result';
  return `HTTP ${exchange.status} with no JSON-RPC answer`;
}
