import { Ajv2020 } from 'ajv/dist/2020.js';
import { isPlainObject } from '../internal/jsonRpc.js';
import { toolResultText } from '../toolResult.js';
import { stableJson } from './observe.js';

/** A `tools/call` result as received (nothing validated or stripped). */
export type RawToolResult = Readonly<Record<string, unknown>>;

const sameJson = (a: unknown, b: unknown): boolean => a !== undefined && stableJson(a) === stableJson(b);

const clip = (text: string, max = 160) => (text.length > max ? `${text.slice(0, max)}…` : text);

function textOf(result: RawToolResult): string | undefined {
  try {
    return toolResultText(result);
  } catch {
    return undefined;
  }
}

/** The JSON object on the last non-empty line of `text`, or undefined. */
export function lastJsonLine(text: string): Record<string, unknown> | undefined {
  const last = text
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .at(-1);
  try {
    const parsed: unknown = JSON.parse(last ?? '');
    return isPlainObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** The structured error (`structuredContent.error`) of an error result, if it has one. */
export function errorOf(result: RawToolResult | undefined): Record<string, unknown> | undefined {
  const error = isPlainObject(result?.structuredContent) ? result.structuredContent.error : undefined;
  return isPlainObject(error) ? error : undefined;
}

/** The error code of an error result, if it has one. */
export function errorCode(result: RawToolResult | undefined): string | undefined {
  const code = errorOf(result)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What is wrong with an error result (I18): it must be `isError: true`, its
 * text must start with `Error:` and end with one JSON line equal to
 * `structuredContent`, and a `not_found` must not point to a create tool.
 * Returns one sentence per problem; none means the envelope is right.
 */
export function errorEnvelopeFindings(result: RawToolResult): string[] {
  const findings: string[] = [];
  if (result.isError !== true) findings.push('the error result is not marked isError: true');
  const text = textOf(result);
  if (text === undefined) return [...findings, 'the error result has no text content'];
  if (!text.startsWith('Error:')) findings.push(`the error text does not start with "Error:": ${clip(text)}`);
  const line = lastJsonLine(text);
  if (line === undefined) findings.push(`the error text does not end with a JSON line: ${clip(text)}`);
  else if (!sameJson(line, result.structuredContent)) {
    findings.push('the JSON line that ends the error text differs from structuredContent');
  }
  const error = errorOf(result);
  const next = isPlainObject(error?.next) ? error.next.tool : undefined;
  if (error?.code === 'not_found' && typeof next === 'string' && /^(create|add|new)_/.test(next)) {
    findings.push(`a not_found error points to the create tool ${next} instead of a find tool`);
  }
  return findings;
}

/**
 * What is wrong with an advertised `outputSchema` as a client sees it: MCP
 * requires an object schema, and SDK clients compile it as JSON Schema
 * 2020-12 (meta-schema checked) before they validate any result with it.
 */
export function outputSchemaFindings(tool: string, schema: unknown): string[] {
  if (schema === undefined) return [`${tool} advertises no outputSchema`];
  if (!isPlainObject(schema)) return [`the outputSchema of ${tool} is not a JSON object`];
  const findings: string[] = [];
  if (schema.type !== 'object')
    findings.push(`the outputSchema of ${tool} does not describe an object (type: "object")`);
  const ajv = new Ajv2020({ strict: false, logger: false });
  if (!ajv.validateSchema(schema)) {
    const details = (ajv.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    findings.push(`the outputSchema of ${tool} is not a valid JSON Schema 2020-12: ${details}`);
  } else {
    try {
      ajv.compile(schema);
    } catch (error) {
      findings.push(`the outputSchema of ${tool} does not compile: ${(error as Error).message}`);
    }
  }
  return findings;
}

/** Validates structured results against tools' advertised output schemas (I19), compiling each once. */
export class OutputSchemas {
  readonly #ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, logger: false });
  readonly #compiled = new Map<string, ReturnType<Ajv2020['compile']> | string>();

  /** Problems of `value` against `schema`, as sentences; a schema that does not compile is one problem. */
  problems(tool: string, schema: unknown, value: unknown): string[] {
    let validate = this.#compiled.get(tool);
    if (validate === undefined) {
      try {
        validate = this.#ajv.compile(schema as object);
      } catch (error) {
        validate = `the outputSchema of ${tool} does not compile: ${(error as Error).message}`;
      }
      this.#compiled.set(tool, validate);
    }
    if (typeof validate === 'string') return [validate];
    if (validate(value)) return [];
    const details = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`)
      .join('; ');
    return [`structuredContent does not validate against the outputSchema of ${tool}: ${details}`];
  }
}

/**
 * What is wrong with any result (I19): its text must carry the same JSON as
 * `structuredContent` (for errors: the final JSON line), and the structured
 * content must validate against the tool's advertised `outputSchema`.
 */
export function resultShapeFindings(
  tool: string,
  result: RawToolResult,
  outputSchema: unknown,
  schemas: OutputSchemas,
): string[] {
  const findings: string[] = [];
  const text = textOf(result);
  const structured = result.structuredContent;
  if (!isPlainObject(structured)) findings.push('the result carries no structuredContent object');
  if (text === undefined) return [...findings, 'the result has no text content'];
  if (text.trim() === '' && structured !== undefined) {
    return [...findings, 'the result has no text: its structuredContent has no text copy'];
  }
  if (result.isError === true) {
    if (!sameJson(lastJsonLine(text), structured)) {
      findings.push('the JSON line that ends the error text differs from structuredContent');
    }
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!sameJson(parsed, structured))
      findings.push(`the text is not the JSON of structuredContent: ${clip(text)}`);
  }
  if (outputSchema === undefined) findings.push(`${tool} advertises no outputSchema`);
  else if (isPlainObject(structured)) findings.push(...schemas.problems(tool, outputSchema, structured));
  return findings;
}

/** What an error text must never show (I18), each with the words a finding uses. */
const LEAKS: readonly (readonly [RegExp, string])[] = [
  [
    /^\s*at\s+(?:async\s+)?(?:\S+\s+\()?(?:file:\/\/|node:|\/|[A-Za-z]:\\)[^\n]*:\d+(?::\d+)?\)?\s*$/m,
    'a stack frame',
  ],
  [
    /(?:file:\/\/\/|(?<![\w.:/])\/(?:home|Users|usr|srv|var|opt|app|tmp|root|workspace|build)\/[\w.-]+\/|\b[A-Za-z]:\\[\w.-]+\\)/,
    'a file path',
  ],
  [
    /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|jdbc:[a-z]+):\/\/[^\s'"<>()]+/i,
    'a connection string',
  ],
  [/\b(?:Server|Data Source|Host)=[^;\s]+;[^\n]*(?:Password|Pwd)=/i, 'a connection string'],
  [/\b(?:SELECT\b[\s\S]{1,200}?\bFROM|INSERT\s+INTO|UPDATE\s+\S+\s+SET|DELETE\s+FROM)\b/i, 'SQL'],
  [
    /\bSQLITE_[A-Z]+\b|\bsyntax error at or near\b|\brelation "[^"]+" does not exist\b|\bER_[A-Z_]{3,}\b|\bduplicate key value violates\b/i,
    'a database error',
  ],
  [
    /\b(?:TypeError|ReferenceError|RangeError)\b|Cannot read propert(?:y|ies) of (?:undefined|null)|\bis not a function\b|\bis not defined\b|Maximum call stack size exceeded/,
    "a runtime exception's message",
  ],
];

/**
 * `text` with the passwords of connection strings (`scheme://user:secret@`,
 * `Password=secret`) and bearer tokens replaced by `***`, so a report that
 * quotes a leak does not spread the secret further.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(/(:\/\/[^:/@\s]*:)[^@\s]+@/g, '$1***@')
    .replace(/\b(Password|Pwd)=[^;\s]*/gi, '$1=***')
    .replace(/\b(Bearer)\s+[\w.~+/=-]{8,}/g, '$1 ***');
}

/**
 * What an error text shows that it never may (I18): a stack frame, a file
 * path, a connection string, SQL or a database error, or a runtime
 * exception's own message (a handler's thrown error passed on verbatim).
 * Returns one sentence per kind found, quoting a short excerpt.
 *
 * @example
 * leakFindings('connect ECONNREFUSED postgres://app:pw@db:5432/app'); // ['… a connection string …']
 */
export function leakFindings(text: string): string[] {
  const found = new Map<string, string>();
  for (const [pattern, kind] of LEAKS) {
    const match = pattern.exec(text);
    if (match && !found.has(kind)) found.set(kind, clip(redactSecrets(match[0].trim()), 80));
  }
  return [...found].map(([kind, excerpt]) => `the error shows ${kind}: ${excerpt}`);
}
