import { readFile } from 'node:fs/promises';
import { displayPath, expandSources } from './files.js';
import { AMBIENT_USER_RULES, type ArchitectureRule, PERSISTENCE_RULES } from './rules.js';

/** One place where tool code breaks an architecture rule. */
export interface ArchitectureFinding {
  /** Path relative to the scan root, `/`-separated. */
  readonly file: string;
  /** 1-based line and column. */
  readonly line: number;
  readonly column: number;
  readonly invariant: 'I1' | 'I2';
  readonly rule: string;
  /** The offending line, trimmed. */
  readonly code: string;
}

/** Options of {@link scanToolSources}. */
export interface ArchitectureScanOptions {
  /** Tool source files: paths, directories or globs (`src/mcp/tools/**\/*.ts`). */
  readonly files: readonly string[];
  /** Where relative paths resolve from and findings are shown relative to; default the working directory. */
  readonly root?: string;
  /** Persistence rules (I1); default {@link PERSISTENCE_RULES}. */
  readonly persistence?: readonly ArchitectureRule[];
  /** Current-user and policy rules (I2); default {@link AMBIENT_USER_RULES}. */
  readonly ambient?: readonly ArchitectureRule[];
}

/** A line ending in this comment is not reported for that invariant: `// gatehouse-allow I1: reason`. */
const ALLOW = /\/\/\s*gatehouse-allow\s+(I1|I2)\b/;

/**
 * `text` with comments blanked out, and with string contents blanked too
 * when `strings` is true (quotes kept). Newlines stay, so lines and columns
 * stay. Good enough for rule matching; not a parser.
 */
export function blankComments(text: string, strings = false): string {
  let out = '';
  let quote: string | undefined;
  const keep = (char: string) => (strings && char !== '\n' ? ' ' : char);
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const next = text[i + 1];
    if (quote) {
      if (char === quote) {
        out += char;
        quote = undefined;
      } else if (char === '\\') {
        out += keep(char) + keep(text[++i] ?? '');
      } else out += keep(char);
    } else if (char === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') out += text[i++] === '\t' ? '\t' : ' ';
      out += text[i] ?? '';
    } else if (char === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop - 1;
    } else {
      if (char === '"' || char === "'" || char === '`') quote = char;
      out += char;
    }
  }
  return out;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"]+)\1/g;

function moduleMatches(rule: ArchitectureRule, specifier: string): boolean {
  if (rule.module instanceof RegExp) return rule.module.test(specifier);
  return rule.module !== undefined && (specifier === rule.module || specifier.startsWith(`${rule.module}/`));
}

/** Findings for one file's text: imports of forbidden modules and lines matching forbidden code. */
export function scanSource(
  file: string,
  text: string,
  rules: readonly ArchitectureRule[],
): ArchitectureFinding[] {
  const findings: ArchitectureFinding[] = [];
  const original = text.split('\n');
  const code = blankComments(text, true).split('\n');
  blankComments(text)
    .split('\n')
    .forEach((line, index) => {
      const allowed = ALLOW.exec(original[index] ?? '')?.[1];
      const report = (rule: ArchitectureRule, column: number) => {
        if (rule.invariant === allowed) return;
        findings.push({
          file,
          line: index + 1,
          column: column + 1,
          invariant: rule.invariant,
          rule: rule.name,
          code: (original[index] ?? '').trim(),
        });
      };
      for (const match of line.matchAll(IMPORT)) {
        const specifier = match[2] ?? '';
        for (const rule of rules) if (moduleMatches(rule, specifier)) report(rule, match.index);
      }
      for (const rule of rules) {
        const hit = rule.pattern?.exec(code[index] ?? '');
        if (hit) report(rule, hit.index);
      }
    });
  return findings;
}

/**
 * Scans tool source files for persistence (I1) and for current-user or
 * policy helpers (I2). Returns findings with file, line and column; an
 * empty list means the tools keep both rules. A line may opt out of one
 * invariant with `// gatehouse-allow I1: <reason>`.
 *
 * @example
 * const findings = await scanToolSources({ files: ['src/mcp/tools/**\/*.ts'] });
 */
export async function scanToolSources(
  options: ArchitectureScanOptions,
): Promise<readonly ArchitectureFinding[]> {
  const root = options.root ?? process.cwd();
  const rules = [...(options.persistence ?? PERSISTENCE_RULES), ...(options.ambient ?? AMBIENT_USER_RULES)];
  const files = await expandSources(options.files, root);
  if (files.length === 0)
    throw new Error(`architecture scan: no source files match ${options.files.join(', ')}`);
  const findings = await Promise.all(
    files.map(async (file) => scanSource(displayPath(file, root), await readFile(file, 'utf8'), rules)),
  );
  return findings.flat();
}

/** One line per finding: `file:line:column I1 rule — code`. */
export function formatArchitectureFindings(findings: readonly ArchitectureFinding[]): string {
  return findings
    .map((f) => `${f.file}:${f.line}:${f.column} ${f.invariant} ${f.rule} — ${f.code}`)
    .join('\n');
}

/**
 * Scans like {@link scanToolSources} and throws an `Error` listing every
 * finding as `file:line:column`, so a vitest `it` fails with the places to fix.
 *
 * @example
 * it('keeps tools on the service layer', () => expectToolArchitecture({ files: ['src/mcp/tools'] }));
 */
export async function expectToolArchitecture(options: ArchitectureScanOptions): Promise<void> {
  const findings = await scanToolSources(options);
  if (findings.length > 0) {
    throw new Error(
      `tool code breaks I1/I2 in ${findings.length} place(s):\n${formatArchitectureFindings(findings)}`,
    );
  }
}
