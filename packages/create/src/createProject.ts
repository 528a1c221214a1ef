import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { UsageError } from './errors.js';
import { packageManifest, TSCONFIG, TSCONFIG_BUILD } from './internal/manifest.js';
import { packageNameProblem } from './internal/names.js';
import { renderTemplate, type Variant } from './internal/render.js';
import { directoryProblem } from './internal/resolve.js';
import { isStore, type ProjectOptions, STORES } from './options.js';
import { ownVersion, TEMPLATES } from './paths.js';

/** Template files only a project with the console gets. */
export const CONSOLE_FILES: readonly string[] = ['src/console.ts', 'src/mcp/deleteTicket.ts'];
/** Tools only a project with the console has: left out of its surface lockfile without it. */
export const CONSOLE_TOOLS: readonly string[] = ['delete_ticket'];
/** The surface lockfile the template tests commit. */
const LOCKFILE = 'test/mcp-surface.lock.json';
/** Files npm leaves out of a package under their real name. */
const RENAMED: Readonly<Record<string, string>> = { gitignore: '.gitignore' };

/** Options of {@link createProject} beyond the project's: where the templates are, which release to depend on. */
export interface CreateProjectSettings {
  readonly templates?: string;
  /** The `@gatehousejs/*` version the project depends on (`^version`); default this package's. */
  readonly version?: string;
}

/** Every file below `dir`, as paths relative to it with `/` separators. */
function filesBelow(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    return entry.isDirectory() ? filesBelow(full, base) : [relative(base, full).split('\\').join('/')];
  });
}

/** Whether a template file belongs in the project: one database module, the console's files only with it. */
function wanted(file: string, options: ProjectOptions): boolean {
  const store = /^src\/db\/(\w+)\.ts$/.exec(file)?.[1];
  if (store !== undefined && isStore(store)) return store === options.store;
  return options.console || !CONSOLE_FILES.includes(file);
}

/** The surface lockfile without the tools the project does not have. */
function lockfileFor(text: string, options: ProjectOptions): string {
  if (options.console) return text;
  const lock = JSON.parse(text) as { toolsets: Record<string, Record<string, unknown>> };
  for (const tools of Object.values(lock.toolsets)) for (const name of CONSOLE_TOOLS) delete tools[name];
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** Checks options given through the API as the command line checks them. */
function checkOptions(options: ProjectOptions): void {
  if (!isStore(options.store)) throw new UsageError(`store must be one of ${STORES.join(', ')}.`);
  if (typeof options.console !== 'boolean') throw new UsageError('console must be true or false.');
  const nameProblem = packageNameProblem(options.name);
  if (nameProblem) throw new UsageError(`"${options.name}" cannot be the package name: ${nameProblem}.`);
  const problem = directoryProblem(options.directory);
  if (problem) throw new UsageError(problem);
}

/**
 * Writes a new project into `options.directory` (created if absent): the
 * templates for the chosen store, with or without the console, its
 * package.json and tsconfig files. Refuses (UsageError) a folder that is
 * not empty, a name npm would not take and an unknown store, before
 * writing anything. Returns the files written, relative to the folder.
 *
 * @example
 * createProject({ directory: 'desk', name: 'desk', store: 'sqlite', console: true });
 */
export function createProject(options: ProjectOptions, settings: CreateProjectSettings = {}): string[] {
  checkOptions(options);
  const templates = settings.templates ?? TEMPLATES;
  const variant: Variant = { store: options.store, console: options.console, name: options.name };
  const output = new Map<string, string>();
  for (const file of filesBelow(templates).filter((f) => wanted(f, options))) {
    const text = readFileSync(join(templates, file), 'utf8');
    output.set(
      RENAMED[file] ?? file,
      file === LOCKFILE ? lockfileFor(text, options) : renderTemplate(text, variant, file),
    );
  }
  output.set('package.json', packageManifest(options, settings.version ?? ownVersion()));
  output.set('tsconfig.json', TSCONFIG);
  output.set('tsconfig.build.json', TSCONFIG_BUILD);
  for (const [file, text] of output) {
    const target = join(options.directory, file);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
  return [...output.keys()].sort();
}
