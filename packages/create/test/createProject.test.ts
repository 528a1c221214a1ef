import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONSOLE_FILES, CONSOLE_TOOLS, createProject } from '../src/createProject.js';
import { UsageError } from '../src/errors.js';
import { STORES, type Store } from '../src/options.js';
import { TEMPLATES } from '../src/paths.js';

let cwd: string;
beforeEach(() => {
  cwd = mkdtempSync(join(tmpdir(), 'create-project-'));
});
afterEach(() => rmSync(cwd, { recursive: true, force: true }));

const VARIANTS = STORES.flatMap((store) => [false, true].map((console) => ({ store, console })));
const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');

function create(store: Store, console: boolean) {
  const directory = join(cwd, `${store}-${console}`);
  const files = createProject({ directory, name: `desk-${store}`, store, console }, { version: '9.8.7' });
  return { directory, files };
}

function filesBelow(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesBelow(join(dir, entry.name))
      : [relative(TEMPLATES, join(dir, entry.name)).split('\\').join('/')],
  );
}

describe('createProject', () => {
  it.each(VARIANTS)(
    'writes the project of store $store, console $console, and reports its files',
    ({ store, console }) => {
      const { directory, files } = create(store, console);
      const onDisk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
          e.isDirectory()
            ? onDisk(join(dir, e.name))
            : [relative(directory, join(dir, e.name)).split('\\').join('/')],
        );
      expect(onDisk(directory).sort()).toEqual(files);
      expect(files).toEqual(
        expect.arrayContaining([
          '.gitignore',
          'README.md',
          'package.json',
          'tsconfig.json',
          'tsconfig.build.json',
        ]),
      );
      expect(files.filter((f) => f.startsWith('src/db/')).sort()).toEqual([
        'src/db/database.ts',
        `src/db/${store}.ts`,
      ]);
      for (const file of CONSOLE_FILES) expect(files.includes(file), file).toBe(console);
      for (const file of files) {
        const text = read(directory, file);
        expect(text, file).not.toMatch(/#if\b|#endif\b|\{\{name\}\}/);
        expect(text, file).not.toMatch(
          new RegExp(`db/(${STORES.filter((s) => s !== store).join('|')})\\.js`),
        );
      }
      expect(read(directory, 'src/main.ts')).toContain(`from './db/${store}.js'`);
      expect(read(directory, 'README.md').split('\n')[0]).toBe(`# desk-${store}`);
    },
  );

  it.each(VARIANTS)(
    'names the store driver and Gatehouse at the release for store $store, console $console',
    ({ store, console }) => {
      const { directory } = create(store, console);
      const manifest = JSON.parse(read(directory, 'package.json'));
      expect(manifest).toMatchObject({ name: `desk-${store}`, private: true, type: 'module' });
      expect(manifest.scripts).toMatchObject({
        start: 'npm run build && node dist/main.js',
        test: 'tsc && vitest run',
      });
      const names = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)];
      expect(names.includes('better-sqlite3')).toBe(store === 'sqlite');
      expect(names.includes('pg')).toBe(store === 'postgres');
      expect(names.includes('@gatehousejs/stores')).toBe(store !== 'memory');
      expect(names.includes('@gatehousejs/console')).toBe(console);
      for (const name of names.filter((n) => n.startsWith('@gatehousejs/')))
        expect(manifest.dependencies[name] ?? manifest.devDependencies[name], name).toBe('^9.8.7');
      expect(manifest.scripts).not.toHaveProperty('postinstall');
    },
  );

  it('writes the surface lockfile without the console tools when the console is left out', () => {
    const withConsole = JSON.parse(read(create('memory', true).directory, 'test/mcp-surface.lock.json'));
    const without = JSON.parse(read(create('memory', false).directory, 'test/mcp-surface.lock.json'));
    const tools = (lock: { toolsets: Record<string, object> }) =>
      Object.values(lock.toolsets).flatMap(Object.keys);
    for (const tool of CONSOLE_TOOLS) {
      expect(tools(withConsole)).toContain(tool);
      expect(tools(without)).not.toContain(tool);
    }
    expect(tools(without).length).toBe(tools(withConsole).length - CONSOLE_TOOLS.length);
  });

  it('uses every template file in some project', () => {
    const used = new Set(VARIANTS.flatMap(({ store, console }) => create(store, console).files));
    const unused = filesBelow(TEMPLATES)
      .map((f) => (f === 'gitignore' ? '.gitignore' : f))
      .filter((f) => !used.has(f));
    expect(unused).toEqual([]);
  });

  it('refuses a folder that is not empty, a bad name and an unknown store before writing anything', () => {
    const directory = join(cwd, 'taken');
    mkdirSync(directory);
    writeFileSync(join(directory, 'keep.txt'), 'mine');
    const refusals = [
      () => createProject({ directory, name: 'desk', store: 'memory', console: false }),
      () => createProject({ directory: join(cwd, 'a'), name: 'Desk', store: 'memory', console: false }),
      () =>
        createProject({ directory: join(cwd, 'b'), name: 'desk', store: 'mongo' as Store, console: false }),
    ];
    for (const refused of refusals) expect(refused).toThrow(UsageError);
    expect(readdirSync(cwd)).toEqual(['taken']);
    expect(readdirSync(directory)).toEqual(['keep.txt']);
  });
});
