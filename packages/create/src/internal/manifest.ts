import type { ProjectOptions } from '../options.js';

/**
 * The ranges of the packages a new project installs beside Gatehouse's: the
 * lines its packages declare as peers, at the versions this repository
 * tests (vitest 5 and better-sqlite3 13 need Node 22, so they stay out).
 */
export const THIRD_PARTY = Object.freeze({
  dependencies: {
    '@modelcontextprotocol/server': '^2.4.0',
    zod: '^4.2.0',
  },
  sqlite: { 'better-sqlite3': '^12.0.0' },
  postgres: { pg: '^8.11.0' },
  devDependencies: {
    '@types/node': '^20.19.0',
    'fast-check': '^4.0.0',
    typescript: '~5.9.3',
    vitest: '^4.1.12',
  },
  sqliteDev: { '@types/better-sqlite3': '^9.6.0' },
  postgresDev: { '@types/pg': '^8.11.0' },
});

const sorted = (entries: Record<string, string>) =>
  Object.fromEntries(Object.entries(entries).sort(([a], [b]) => a.localeCompare(b)));

/** The project's package.json: Gatehouse's packages at `^version`, the store's driver, the scripts of the README. */
export function packageManifest(options: ProjectOptions, version: string): string {
  const gatehouse = (names: string[]) =>
    Object.fromEntries(names.map((n) => [`@gatehousejs/${n}`, `^${version}`]));
  const sql = options.store !== 'memory';
  const manifest = {
    name: options.name,
    version: '0.1.0',
    private: true,
    type: 'module',
    description: 'An MCP server built with Gatehouse: a small ticket desk.',
    engines: { node: '>=20.19' },
    scripts: {
      build: 'tsc -p tsconfig.build.json',
      start: 'npm run build && node dist/main.js',
      test: 'tsc && vitest run',
      typecheck: 'tsc',
    },
    dependencies: sorted({
      ...gatehouse([
        'access',
        'core',
        'guards',
        'presenters',
        ...(sql ? ['stores'] : []),
        ...(options.console ? ['console'] : []),
      ]),
      ...THIRD_PARTY.dependencies,
      ...(options.store === 'sqlite' ? THIRD_PARTY.sqlite : {}),
      ...(options.store === 'postgres' ? THIRD_PARTY.postgres : {}),
    }),
    devDependencies: sorted({
      ...gatehouse(['testing']),
      ...THIRD_PARTY.devDependencies,
      ...(options.store === 'sqlite' ? THIRD_PARTY.sqliteDev : {}),
      ...(options.store === 'postgres' ? THIRD_PARTY.postgresDev : {}),
    }),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** `tsconfig.json`: strict, Node's own module rules, sources and tests checked (`tsc` emits nothing). */
export const TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'es2022',
      lib: ['es2023'],
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noUncheckedIndexedAccess: true,
      noImplicitOverride: true,
      noImplicitReturns: true,
      noFallthroughCasesInSwitch: true,
      isolatedModules: true,
      verbatimModuleSyntax: true,
      skipLibCheck: true,
      types: ['node'],
      noEmit: true,
    },
    include: ['src', 'test'],
  },
  null,
  2,
)}\n`;

/** `tsconfig.build.json`: the sources compiled to `dist/` for `npm start`. */
export const TSCONFIG_BUILD = `${JSON.stringify(
  {
    extends: './tsconfig.json',
    compilerOptions: { noEmit: false, rootDir: 'src', outDir: 'dist', sourceMap: true },
    include: ['src'],
  },
  null,
  2,
)}\n`;
