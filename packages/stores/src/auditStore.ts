import type { AuditQuery, AuditRow, AuditStore } from '@gatehousejs/core';
import type { SqliteDatabase } from './database.js';
import { type AuditColumns, auditRowOf } from './internal/rows.js';
import { assertSchema } from './internal/schemaVersion.js';
import { type LockOptions, writer } from './internal/writes.js';

const toRecord = (row: AuditRow): AuditColumns<string> => ({
  id: row.id,
  at: row.at,
  channel: row.channel,
  tenant_id: row.tenantId,
  connection_id: row.connectionId,
  client_name: row.clientName,
  actor_id: row.actorId,
  action: row.action,
  outcome: row.outcome,
  object_ids: JSON.stringify(row.objectIds),
  note: row.note,
});

interface ListParams {
  readonly tenant: string | null;
  readonly connection: string | null;
  readonly channel: string | null;
  readonly actor: string | null;
  readonly action: string | null;
  readonly from: number | null;
  readonly to: number | null;
  readonly before: string | null;
  readonly limit: number;
}

/** The filters a query gives, as a key: one prepared statement per key (`tenantId: null` is its own). */
const shapeOf = (query: AuditQuery): string =>
  [
    query.tenantId === undefined ? '-' : query.tenantId === null ? '0' : '1',
    ...[
      query.connectionId,
      query.channel,
      query.actorId,
      query.action,
      query.from,
      query.to,
      query.before,
    ].map((value) => (value === undefined ? '-' : '1')),
  ].join('');

const prepareInsert = (db: SqliteDatabase) =>
  db.prepare<AuditColumns<string>>(
    `INSERT INTO gatehouse_audit (id, at, channel, tenant_id, connection_id, client_name, actor_id,
       action, outcome, object_ids, note)
     VALUES (@id, @at, @channel, @tenant_id, @connection_id, @client_name, @actor_id, @action,
       @outcome, @object_ids, @note)
     ON CONFLICT DO NOTHING`,
  );

type ListStatement = ReturnType<typeof prepareList>;

/**
 * One statement per filter shape, so each uses its index (`tenant_id, id` or
 * `connection_id, id`); every value is a bound parameter.
 */
function prepareList(db: SqliteDatabase, query: AuditQuery) {
  const where: string[] = [];
  if (query.tenantId === null) where.push('tenant_id IS NULL');
  else if (query.tenantId !== undefined) where.push('tenant_id = @tenant');
  if (query.connectionId !== undefined) where.push('connection_id = @connection');
  if (query.channel !== undefined) where.push('channel = @channel');
  if (query.actorId !== undefined) where.push('actor_id = @actor');
  if (query.action !== undefined) where.push('action = @action');
  if (query.from !== undefined) where.push('at >= @from');
  if (query.to !== undefined) where.push('at < @to');
  if (query.before !== undefined) where.push('id < @before');
  const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  return db.prepare<ListParams, AuditColumns<string>>(
    `SELECT * FROM gatehouse_audit ${clause} ORDER BY id DESC LIMIT @limit`,
  );
}

/**
 * An {@link AuditStore} in `gatehouse_audit` (I15): append-only, listed newest
 * first by id (ids must sort by time; ULIDs do), filtered by tenant (or no
 * tenant), connection, channel, actor, action and a time range on `at`, paged
 * with the `before` cursor. `append` refuses a second row with the same id.
 * `appendSync` runs inside the host's `db.transaction`, so the audit row
 * commits with the write it records. Rows are kept until the host deletes
 * them (retention is the host's policy).
 *
 * @example
 * const audit = new SqliteAuditStore(db);
 */
export class SqliteAuditStore implements AuditStore {
  readonly #db: SqliteDatabase;
  readonly #insert: ReturnType<typeof prepareInsert>;
  readonly #lists = new Map<string, ListStatement>();
  readonly #write: ReturnType<typeof writer>;

  constructor(db: SqliteDatabase, options: LockOptions = {}) {
    this.#write = writer(db, 'SqliteAuditStore', options);
    assertSchema(db, 'SqliteAuditStore');
    this.#db = db;
    this.#insert = prepareInsert(db);
  }

  /** Synchronous {@link AuditStore.append}; throws on a duplicate id. */
  appendSync(row: AuditRow): void {
    if (this.#insert.run(toRecord(row)).changes !== 1) {
      throw new Error('An audit row with this id already exists.');
    }
  }

  /** Synchronous {@link AuditStore.list}: newest first, at most `limit` rows. */
  listSync(query: AuditQuery): readonly AuditRow[] {
    const limit = Math.floor(query.limit);
    if (!(limit > 0)) return [];
    const shape = shapeOf(query);
    let statement = this.#lists.get(shape);
    if (!statement) {
      statement = prepareList(this.#db, query);
      this.#lists.set(shape, statement);
    }
    const records = statement.all({
      tenant: query.tenantId ?? null,
      connection: query.connectionId ?? null,
      channel: query.channel ?? null,
      actor: query.actorId ?? null,
      action: query.action ?? null,
      from: query.from ?? null,
      to: query.to ?? null,
      before: query.before ?? null,
      limit,
    });
    return records.map(auditRowOf);
  }

  /** Inside a unit of work (`unit` given) the row joins its transaction; else it commits on its own. */
  append(row: AuditRow, unit?: unknown): Promise<void> {
    return this.#write(unit, () => this.appendSync(row));
  }

  async list(query: AuditQuery): Promise<readonly AuditRow[]> {
    return this.listSync(query);
  }
}
