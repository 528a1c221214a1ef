import type { McpEra } from '../types.js';

/** The report formats `gatehouse scan` writes. */
export type ScanFormat = 'text' | 'json' | 'sarif' | 'markdown';

const USAGE_BRAND = Symbol.for('gatehouse.scan.usageError');

/** A command line that cannot run; the CLI prints the message and the usage, and exits 2. */
export class ScanUsageError extends Error {
  override readonly name = 'ScanUsageError';
  readonly [USAGE_BRAND] = true;

  /** True for a ScanUsageError, even one from another copy of this package. */
  static is(error: unknown): error is ScanUsageError {
    return typeof error === 'object' && error !== null && USAGE_BRAND in error;
  }
}

/** What `gatehouse scan` was asked to do, parsed and checked. */
export interface ScanCommand {
  readonly target: { readonly url: URL } | { readonly command: string; readonly args: readonly string[] };
  /** Credential headers: `authorization` from `--token`, or the `--header`s. */
  readonly credential: Readonly<Record<string, string>>;
  readonly credentialKind: 'token' | 'headers' | 'none';
  readonly public: boolean;
  readonly allowCalls: boolean;
  readonly allowWrites: boolean;
  readonly fixture?: string;
  readonly format: ScanFormat;
  readonly output?: string;
  readonly eras?: readonly McpEra[];
  readonly source?: string;
  readonly timeoutMs?: number;
  readonly rateProbe?: number;
}

/** The usage text. */
export const SCAN_USAGE = `Usage: gatehouse scan <url> [options]
       gatehouse scan --stdio "command args" [options]

Checks an MCP server from outside against Gatehouse's invariants. By default it lists
tools and sends only requests a correct server refuses before any tool runs.

Options:
  --token T          bearer token to send (or set GATEHOUSE_SCAN_TOKEN)
  --header "K: V"    a credential header to send instead, repeatable
  --stdio "cmd …"    start the server and speak over its stdin and stdout
  --public           the server is meant to answer without a credential
  --allow-calls      also send calls with the valid arguments of --fixture
  --allow-writes     let those calls reach tools that may write or act outward
  --fixture FILE     JSON: {"tools": {"name": {"arguments": {...}, "writes": true}}}
  --format F         text (default), json, sarif or markdown
  --output FILE      write the report to FILE instead of standard output
  --era E            speak only 2025-11-25 or 2026-07-28 (default: both)
  --source DIR       a Gatehouse project: SARIF points at tool definitions
                     (default: the current directory when it is one)
  --timeout MS       per request (default 10000)
  --rate-probe N     most refused calls per tool to find a rate limit (default 100)
  -h, --help         this text

Exit codes: 0 no check failed, 1 a check failed, 2 a usage error, 3 the server could not be reached.`;

const FORMATS: readonly ScanFormat[] = ['text', 'json', 'sarif', 'markdown'];
const ERAS: readonly McpEra[] = ['2025-11-25', '2026-07-28'];
const VALUED = new Set([
  '--token',
  '--header',
  '--stdio',
  '--fixture',
  '--format',
  '--output',
  '--era',
  '--source',
  '--timeout',
  '--rate-probe',
]);
const FLAGS = new Set(['--public', '--allow-calls', '--allow-writes']);

/** Splits a command line into words: spaces separate, single and double quotes group, a backslash escapes. */
export function splitCommand(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let quote: string | undefined;
  let started = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] as string;
    if (quote) {
      if (char === quote) quote = undefined;
      else if (char === '\\' && quote === '"' && i + 1 < line.length) word += line[++i];
      else word += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (char === '\\' && i + 1 < line.length) {
      word += line[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started || word) words.push(word);
      word = '';
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (quote) throw new ScanUsageError(`--stdio: an unclosed ${quote} in ${JSON.stringify(line)}`);
  if (started || word) words.push(word);
  return words;
}

function positiveInteger(flag: string, raw: string): number {
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0)
    throw new ScanUsageError(`${flag} takes a positive whole number, not ${JSON.stringify(raw)}`);
  return value;
}

function headerOf(raw: string): [string, string] {
  const colon = raw.indexOf(':');
  const name = colon > 0 ? raw.slice(0, colon).trim() : '';
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw new ScanUsageError(`--header takes "Name: value", not ${JSON.stringify(raw.slice(0, 40))}`);
  return [name.toLowerCase(), raw.slice(colon + 1).trim()];
}

function urlOf(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ScanUsageError(`not a URL: ${JSON.stringify(raw.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ScanUsageError(`the URL must be http or https, not ${url.protocol}`);
  return url;
}

/** Reads flags and their values; the words left are positional. */
function readFlags(argv: readonly string[]) {
  const values = new Map<string, string[]>();
  const flags = new Set<string>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] as string;
    const [flag, inline] =
      word.startsWith('--') && word.includes('=')
        ? [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]
        : [word, undefined];
    if (VALUED.has(flag)) {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new ScanUsageError(`${flag} needs a value`);
      values.set(flag, [...(values.get(flag) ?? []), value]);
    } else if (FLAGS.has(flag)) flags.add(flag);
    else if (word.startsWith('-') && word !== '-') throw new ScanUsageError(`unknown option ${word}`);
    else positional.push(word);
  }
  return { values, flags, positional };
}

/**
 * Parses the words after `scan` into a {@link ScanCommand}; throws
 * {@link ScanUsageError} naming the problem (an unknown option, a missing
 * value, both or neither of a URL and `--stdio`, `--allow-writes` without
 * `--allow-calls`, `--allow-calls` without `--fixture`, …).
 */
export function parseScanArgs(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = {},
): ScanCommand {
  const { values, flags, positional } = readFlags(argv);
  const one = (flag: string) => {
    const given = values.get(flag);
    if (given && given.length > 1 && flag !== '--header')
      throw new ScanUsageError(`${flag} given more than once`);
    return given?.[0];
  };
  const stdio = one('--stdio');
  if (positional.length > 1)
    throw new ScanUsageError(`one URL to scan, not ${positional.length}: ${positional.join(' ')}`);
  if (stdio !== undefined && positional.length > 0)
    throw new ScanUsageError('give a URL or --stdio, not both');
  if (stdio === undefined && positional.length === 0)
    throw new ScanUsageError('give the URL of the MCP endpoint, or --stdio "command args"');
  const words = stdio === undefined ? [] : splitCommand(stdio);
  if (stdio !== undefined && words.length === 0) throw new ScanUsageError('--stdio needs a command');
  const target =
    stdio === undefined
      ? { url: urlOf(positional[0] as string) }
      : { command: words[0] as string, args: words.slice(1) };
  const token = one('--token') ?? (env.GATEHOUSE_SCAN_TOKEN || undefined);
  const headers = (values.get('--header') ?? []).map(headerOf);
  if (token !== undefined && headers.some(([name]) => name === 'authorization'))
    throw new ScanUsageError('give --token or an Authorization --header, not both');
  if (stdio !== undefined && (token !== undefined || headers.length > 0))
    throw new ScanUsageError(
      '--token and --header are for HTTP; a stdio server gets its credential from its environment',
    );
  const credential = Object.fromEntries([
    ...(token === undefined ? [] : [['authorization', `Bearer ${token}`]]),
    ...headers,
  ]);
  const credentialKind = token !== undefined ? 'token' : headers.length > 0 ? 'headers' : 'none';
  if (flags.has('--public') && credentialKind !== 'none')
    throw new ScanUsageError('--public describes a server without a credential; drop --token and --header');
  if (flags.has('--allow-writes') && !flags.has('--allow-calls'))
    throw new ScanUsageError('--allow-writes needs --allow-calls');
  const fixture = one('--fixture');
  if (flags.has('--allow-calls') && fixture === undefined)
    throw new ScanUsageError('--allow-calls needs --fixture FILE naming safe arguments per tool');
  const format = (one('--format') ?? 'text') as ScanFormat;
  if (!FORMATS.includes(format))
    throw new ScanUsageError(`--format takes ${FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  const era = one('--era') as McpEra | undefined;
  if (era !== undefined && !ERAS.includes(era))
    throw new ScanUsageError(`--era takes ${ERAS.join(' or ')}, not ${JSON.stringify(era)}`);
  const timeout = one('--timeout');
  const rateProbe = one('--rate-probe');
  const output = one('--output');
  const source = one('--source');
  return {
    target,
    credential,
    credentialKind,
    public: flags.has('--public'),
    allowCalls: flags.has('--allow-calls'),
    allowWrites: flags.has('--allow-writes'),
    format,
    ...(fixture === undefined ? {} : { fixture }),
    ...(output === undefined ? {} : { output }),
    ...(era === undefined ? {} : { eras: [era] }),
    ...(source === undefined ? {} : { source }),
    ...(timeout === undefined ? {} : { timeoutMs: positiveInteger('--timeout', timeout) }),
    ...(rateProbe === undefined ? {} : { rateProbe: positiveInteger('--rate-probe', rateProbe) }),
  };
}
