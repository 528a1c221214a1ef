import type { AuditQuery, AuditRow, AuditStore } from '@gatehousejs/core';
import type pg from 'pg';
import { type AuditColumns, auditRowOf } from '../internal/rows.js';
import { on, prepared } from './sql.js';

const NAME = 'PostgresAuditStore';

/** PostgreSQL text cannot hold NUL; a note (public, free text) keeps everything else. */
const text = (value: string | null): string | null =>
  value === null ? null : value.replaceAll('\u0000', '\uFFFD');

const INSERT =
  prepared(`INSERT INTO gatehouse_audit (id, at, channel, tenant_id, connection_id, client_name, actor_id,
    action, outcome, object_ids, note)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::text[], $11)
  ON CONFLICT DO NOTHING`);

const hasNul = (value: unknown): boolean => typeof value === 'string' && value.includes('\u0000');

/**
 * The statement for one filter shape, so each uses its index (`tenant_id, id`
 * or `connection_id, id`); every value is a parameter. Times compare as
 * `double precision`, so a fractional bound is compared, not refused. No
 * stored value holds NUL, which PostgreSQL text cannot take: a filter that
 * holds one matches nothing, and a `before` cursor that holds one is the part
 * before it, ids up to it included (as the memory store compares).
 */
function listStatement(query: AuditQuery): { text: string; values: unknown[] } {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (clause: string, value: unknown, cast = '') => {
    values.push(value);
    where.push(`${clause} $${values.length}${cast}`);
  };
  if ([query.tenantId, query.connectionId, query.channel, query.actorId, query.action].some(hasNul)) {
    return { text: 'SELECT * FROM gatehouse_audit WHERE FALSE LIMIT $1', values: [Math.floor(query.limit)] };
  }
  if (query.tenantId === null) where.push('tenant_id IS NULL');
  else if (query.tenantId !== undefined) add('tenant_id =', query.tenantId);
  if (query.connectionId !== undefined) add('connection_id =', query.connectionId);
  if (query.channel !== undefined) add('channel =', query.channel);
  if (query.actorId !== undefined) add('actor_id =', query.actorId);
  if (query.action !== undefined) add('action =', query.action);
  if (query.from !== undefined) add('at >=', query.from, '::double precision');
  if (query.to !== undefined) add('at <', query.to, '::double precision');
  if (query.before !== undefined) {
    const nul = query.before.indexOf('\u0000');
    if (nul < 0) add('id <', query.before);
    else add('id <=', query.before.slice(0, nul));
  }
  values.push(Math.floor(query.limit));
  const clause = where.length === 0 ? '' : `WHERE ${where.join(' AND ')}`;
  return {
    text: `SELECT * FROM gatehouse_audit ${clause} ORDER BY id DESC LIMIT $${values.length}`,
    values,
  };
}

/**
 * An {@link AuditStore} in the PostgreSQL table `gatehouse_audit` (I15):
 * append-only, listed newest first by id (ids must sort by time; ULIDs do,
 * compared byte-wise), filtered by tenant (or no tenant), connection,
 * channel, actor, action and a time range on `at`, paged with the `before`
 * cursor. `append` refuses a second row with the same id; given the unit of
 * work's client it writes in that transaction, so the row commits with the
 * write it records. Rows are kept until the host deletes them.
 * Requires `migrateGatehouseSchemaPostgres(pool)` first.
 *
 * @example
 * const audit = new PostgresAuditStore(pool);
 */
export class PostgresAuditStore implements AuditStore {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /** Inside a unit of work (`unit` given) the row joins its transaction; else it commits on its own. */
  async append(row: AuditRow, unit?: unknown): Promise<void> {
    const inserted = await on(this.#pool, unit, NAME).query({
      ...INSERT,
      values: [
        row.id,
        row.at,
        row.channel,
        row.tenantId,
        row.connectionId,
        row.clientName,
        row.actorId,
        row.action,
        row.outcome,
        [...row.objectIds],
        text(row.note),
      ],
    });
    if (inserted.rowCount !== 1) throw new Error('An audit row with this id already exists.');
  }

  async list(query: AuditQuery): Promise<readonly AuditRow[]> {
    if (!(Math.floor(query.limit) > 0)) return [];
    const found = await this.#pool.query<AuditColumns<string[]>>(listStatement(query));
    return found.rows.map(auditRowOf);
  }
}
