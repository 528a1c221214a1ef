#!/usr/bin/env node
// Type-checks every TypeScript block of the docs (docs/**/*.md and the root
// README.md). Each ```ts (or ```typescript) block is one of:
//   - quoted: preceded by `<!-- quote path#region -->`, it must equal that region
//     of a file that `npm run typecheck` compiles (scripts/quoteRegions.mjs refreshes it);
//   - compiled: any other block is compiled here as an ES module, with
//     @gatehousejs/* mapped to the package sources. Names it uses but does not
//     declare or import come from the context module named by the nearest
//     `<!-- context path -->` above it on the page (the block imports that
//     module's exports it does not bind itself);
//   - a fragment: ```ts fragment, not compiled. Keep these few: a shape shown
//     for reading, never code a reader would paste.
// `node scripts/checkDocsCode.mjs` checks the docs; with page arguments, only those.
// Exits non-zero naming page:line for every failure.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { DOCS, isWrittenPage, REPO } from './docsLinks.mjs';
import { QUOTE_MARKER, region } from './quoteRegions.mjs';

const CONTEXT_MARKER = /^<!-- context (\S+) -->$/;
const FENCE = /^```(ts|typescript)(?:\s+(.*))?$/;

/** Every written page of the site and the root README, absolute. */
function allPages(folder = DOCS) {
  const pages = readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : allPages(path);
    return isWrittenPage(path) ? [path] : [];
  });
  return folder === DOCS ? [...pages.sort(), join(REPO, 'README.md')] : pages;
}

/** The TypeScript blocks of a page: where, how they are checked, their text. */
export function blocksOf(page) {
  const lines = readFileSync(page, 'utf8').split('\n');
  const blocks = [];
  let context;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const contextMatch = line.match(CONTEXT_MARKER);
    if (contextMatch) context = resolve(dirname(page), contextMatch[1] ?? '');
    if (/^\s*(```|~~~)/.test(line) && !FENCE.test(line)) {
      // another language's block: skip to its end, so its text is not read as markers
      const fence = line.trim().match(/^(`{3,}|~{3,})/)?.[1] ?? '```';
      while (i + 1 < lines.length && !(lines[i + 1] ?? '').trim().startsWith(fence)) i++;
      i++;
      continue;
    }
    const fence = line.match(FENCE);
    if (!fence) continue;
    let end = i + 1;
    while (end < lines.length && lines[end] !== '```') end++;
    if (end === lines.length)
      throw new Error(`${relative(REPO, page)}:${i + 1}: a TypeScript block is never closed`);
    const quote = (lines[i - 1] ?? '').match(QUOTE_MARKER);
    const info = (fence[2] ?? '').split(/\s+/).filter(Boolean);
    blocks.push({
      page,
      line: i + 1,
      text: lines.slice(i + 1, end).join('\n'),
      kind: quote ? 'quoted' : info.includes('fragment') ? 'fragment' : 'compiled',
      quote: quote ? { file: resolve(dirname(page), quote[1] ?? ''), name: quote[2] ?? '' } : undefined,
      context,
    });
    i = end;
  }
  return blocks;
}

const sourceOf = (path, text) =>
  ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);

function bindingNames(name, into) {
  if (ts.isIdentifier(name)) into.add(name.text);
  else
    for (const element of name.elements)
      if (!ts.isOmittedExpression(element)) bindingNames(element.name, into);
}

/** Names a module binds at its top level: imports and declarations. */
function boundNames(source) {
  const names = new Set();
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement)) {
      const clause = statement.importClause;
      if (clause?.name) names.add(clause.name.text);
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) for (const e of bindings.elements) names.add(e.name.text);
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name, names);
    } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name)) {
      names.add(statement.name.text);
    }
  }
  return names;
}

const isExported = (node) => ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Export;

/** A context module's exports: name → whether it is a type only. */
function exportsOf(file) {
  const exports = new Map();
  for (const statement of sourceOf(file, readFileSync(file, 'utf8')).statements) {
    if (ts.isVariableStatement(statement) && isExported(statement)) {
      const names = new Set();
      for (const declaration of statement.declarationList.declarations) bindingNames(declaration.name, names);
      for (const name of names) exports.set(name, false);
    } else if (
      ts.isExportDeclaration(statement) &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const e of statement.exportClause.elements)
        exports.set(e.name.text, statement.isTypeOnly || e.isTypeOnly);
    } else if (
      'name' in statement &&
      statement.name &&
      ts.isIdentifier(statement.name) &&
      isExported(statement)
    ) {
      const typeOnly = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
      exports.set(statement.name.text, typeOnly);
    }
  }
  return exports;
}

/** The module a compiled block becomes: its context's imports first (one line), then the block as written. */
function moduleOf(block, scratch) {
  if (!block.context) return `\n${block.text}\nexport {};\n`;
  const bound = boundNames(sourceOf('block.ts', block.text));
  const wanted = [...exportsOf(block.context)].filter(([name]) => !bound.has(name));
  const specifier = relative(scratch, block.context).replace(/\.(m?)ts$/, '.$1js');
  const names = wanted.map(([name, typeOnly]) => (typeOnly ? `type ${name}` : name)).join(', ');
  const head = wanted.length
    ? `import { ${names} } from '${specifier.startsWith('.') ? specifier : `./${specifier}`}';`
    : '';
  return `${head}\n${block.text}\nexport {};\n`;
}

/** Compiler options: the repository's strict settings, @gatehousejs/* mapped to the sources. */
function compilerOptions() {
  const read = (file) => ts.readConfigFile(file, ts.sys.readFile).config;
  const root = read(join(REPO, 'tsconfig.json'));
  const parsed = ts.parseJsonConfigFileContent(
    {
      extends: './tsconfig.base.json',
      compilerOptions: { ...root.compilerOptions, noEmit: true },
      files: [],
    },
    ts.sys,
    REPO,
  );
  return parsed.options;
}

/** Compiles the blocks, each as its own module; returns the failures, each naming page:line. */
function compileBlocks(compiled) {
  const failures = [];
  // inside the repository, so the blocks resolve the repository's node_modules
  mkdirSync(join(REPO, 'node_modules', '.cache'), { recursive: true });
  const scratch = mkdtempSync(join(REPO, 'node_modules', '.cache', 'docs-code-'));
  try {
    const files = new Map();
    compiled.forEach((block, index) => {
      const file = join(scratch, `block${index}.mts`);
      try {
        writeFileSync(file, moduleOf(block, scratch));
        files.set(file, block);
      } catch (error) {
        failures.push(
          `${relative(REPO, block.page)}:${block.line}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    const program = ts.createProgram([...files.keys()], compilerOptions());
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const file = diagnostic.file?.fileName;
      const block = file ? files.get(resolve(file)) : undefined;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
      if (!block) {
        failures.push(`${file ? relative(REPO, file) : 'tsc'}: ${message}`);
        continue;
      }
      // line 1 of the module is the context's import line
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
      failures.push(`${relative(REPO, block.page)}:${block.line + line}: ${message}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return failures;
}

/** Checks the blocks of the given pages; returns the failures, each naming page:line. */
export function checkPages(pages) {
  const failures = [];
  const blocks = pages.flatMap(blocksOf);
  const where = (block) => `${relative(REPO, block.page)}:${block.line}`;
  for (const block of blocks.filter((b) => b.kind === 'quoted')) {
    try {
      if (region(block.quote.file, block.quote.name) !== block.text) {
        failures.push(
          `${where(block)}: differs from ${relative(REPO, block.quote.file)}#${block.quote.name}`,
        );
      }
    } catch (error) {
      failures.push(`${where(block)}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const compiled = blocks.filter((b) => b.kind === 'compiled');
  if (compiled.length > 0) failures.push(...compileBlocks(compiled));
  const count = (kind) => blocks.filter((b) => b.kind === kind).length;
  return {
    failures,
    counts: { quoted: count('quoted'), compiled: count('compiled'), fragment: count('fragment') },
    fragments: blocks.filter((b) => b.kind === 'fragment').map(where),
  };
}

if (resolve(process.argv[1] ?? '') === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const pages = args.length ? args.map((page) => resolve(page)) : allPages();
  const { failures, counts, fragments } = checkPages(pages);
  console.log(
    `docs code: ${counts.quoted} quoted, ${counts.compiled} compiled, ${counts.fragment} fragments` +
      (fragments.length ? ` (${fragments.join(', ')})` : ''),
  );
  for (const failure of failures) console.error(failure);
  process.exit(failures.length ? 1 : 0);
}
