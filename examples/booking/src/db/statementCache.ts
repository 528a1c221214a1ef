import type { SqliteDatabase } from '@gatehousejs/stores';

/**
 * The same connection, with `prepare` answered from a cache: the services
 * prepare each SQL text once per process instead of once per call
 * (better-sqlite3 statements are reusable, and compiling one costs more
 * than running it). Everything else is the connection itself, so the
 * services' statements still join an open unit of work.
 */
export function cachingPrepare(db: SqliteDatabase): SqliteDatabase {
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const prepare = (source: string) => {
    let statement = statements.get(source);
    if (!statement) {
      statement = db.prepare(source);
      statements.set(source, statement);
    }
    return statement;
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(db, {
    get(target, key) {
      if (key === 'prepare') return prepare;
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      let method = bound.get(key);
      if (!method) {
        method = (value as (...args: unknown[]) => unknown).bind(target);
        bound.set(key, method);
      }
      return method;
    },
  });
}
