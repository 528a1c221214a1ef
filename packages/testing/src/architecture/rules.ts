/**
 * One thing tool code must not do. A rule matches an import/require of a
 * module (`module`), or a code pattern on a line (`pattern`).
 */
export interface ArchitectureRule {
  /** The invariant it protects: `I1` (tools go through services) or `I2` (no ambient user). */
  readonly invariant: 'I1' | 'I2';
  /** What it forbids, e.g. `imports better-sqlite3`. */
  readonly name: string;
  /** A module specifier (exact, or a prefix followed by `/`) or a pattern over specifiers. */
  readonly module?: string | RegExp;
  /** A pattern over code (comments removed). */
  readonly pattern?: RegExp;
}

/** A rule forbidding imports of `specifier` (and its subpaths). */
export function forbidModule(invariant: 'I1' | 'I2', specifier: string | RegExp): ArchitectureRule {
  return { invariant, name: `imports ${String(specifier)}`, module: specifier };
}

/** A rule forbidding code that matches `pattern`, named `name`. */
export function forbidCode(invariant: 'I1' | 'I2', name: string, pattern: RegExp): ArchitectureRule {
  return { invariant, name, pattern };
}

const PERSISTENCE_MODULES = [
  'better-sqlite3',
  'sqlite3',
  'node:sqlite',
  'pg',
  'postgres',
  'mysql',
  'mysql2',
  'mssql',
  'oracledb',
  'mongodb',
  'mongoose',
  'redis',
  'ioredis',
  'knex',
  'kysely',
  'drizzle-orm',
  'typeorm',
  'sequelize',
  'objection',
  '@mikro-orm/core',
  '@prisma/client',
  'prisma',
  '@libsql/client',
  '@neondatabase/serverless',
  '@vercel/postgres',
  '@planetscale/database',
];

/**
 * Persistence in tool code (I1): ORM, SQL drivers and database handles.
 * Tools call the product's services; the services own persistence.
 */
export const PERSISTENCE_RULES: readonly ArchitectureRule[] = Object.freeze([
  ...PERSISTENCE_MODULES.map((m) => forbidModule('I1', m)),
  forbidCode('I1', 'prepares SQL (db.prepare)', /\.prepare\s*\(/),
  forbidCode('I1', 'runs a query (.query)', /\.query\s*\(/),
  forbidCode(
    'I1',
    'runs raw SQL ($queryRaw, $executeRaw, .raw)',
    /\$(query|execute)Raw(Unsafe)?\b|\.raw\s*\(/,
  ),
  forbidCode('I1', 'writes SQL in a tagged template (sql`…`)', /\bsql\s*`/),
  forbidCode(
    'I1',
    'uses a database handle (db., database., knex(), prisma.)',
    /\b(db|database|knex|prisma)\s*(\.|\()/,
  ),
  forbidCode('I1', "calls the product's own HTTP API (fetch, axios)", /\bfetch\s*\(|\baxios\b/),
]);

/**
 * An ambient current user or a policy helper in tool code (I2): tools read
 * the actor from the connection context; services check policy.
 */
export const AMBIENT_USER_RULES: readonly ArchitectureRule[] = Object.freeze([
  forbidModule('I2', 'next-auth'),
  forbidModule('I2', '@auth/core'),
  forbidModule('I2', '@clerk/nextjs'),
  forbidModule('I2', '@casl/ability'),
  forbidCode('I2', 'reads a current user (currentUser)', /\bcurrentUser\b/),
  forbidCode('I2', 'calls auth()', /\bauth\s*\(\s*\)/),
  forbidCode(
    'I2',
    'reads a session (getSession, getServerSession, useSession)',
    /\b(getSession|getServerSession|useSession)\s*\(/,
  ),
  forbidCode('I2', 'reads the request user (req.user, request.user)', /\b(req|request)\.user\b/),
  forbidCode(
    'I2',
    'checks policy (can(), cannot(), authorize(), ability.)',
    /(^|[^.\w])(can|cannot|authorize)\s*\(|\bability\s*\./,
  ),
  forbidCode('I2', 'keeps request context ambiently (AsyncLocalStorage)', /\bAsyncLocalStorage\b/),
]);
