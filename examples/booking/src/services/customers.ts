import type { Actor, Customer } from '../domain/model.js';
import { LIMITS } from '../domain/model.js';
import { notFound, type ServiceDeps, workspaceOf, zoned } from './support.js';

interface CustomerRow {
  readonly id: string;
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
  readonly notes: string | null;
  readonly created_at: number;
  readonly revision: number;
}

/** Public columns only: the portal password hash and the payment reference never leave this module. */
const COLUMNS = 'id, name, email, phone, notes, created_at, revision';

/** Customers of the actor's workspace; every lookup is scoped to it (I3). */
export class CustomerService {
  readonly #zone: string;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
  ) {
    this.#zone = workspaceOf(deps, actor).zone;
  }

  #toCustomer = (row: CustomerRow): Customer => ({
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    notes: row.notes,
    createdAt: zoned(row.created_at, this.#zone),
    revision: row.revision,
  });

  /** Customers whose name or e-mail contains `query` (case-insensitive), by name. */
  find(query: string | undefined, limit: number = LIMITS.maxListed): Customer[] {
    const rows = this.deps.db
      .prepare<{ ws: string; q: string; limit: number }, CustomerRow>(
        `SELECT ${COLUMNS} FROM customers WHERE workspace_id = @ws
         AND (name LIKE @q ESCAPE '\\' OR email LIKE @q ESCAPE '\\') ORDER BY name LIMIT @limit`,
      )
      .all({
        ws: this.actor.workspaceId,
        q: `%${escapeLike(query ?? '')}%`,
        limit: Math.min(limit, LIMITS.maxListed),
      });
    return rows.map(this.#toCustomer);
  }

  /** One customer; `not_found` for an id of another workspace. */
  get(id: string): Customer {
    const row = this.deps.db
      .prepare<[string, string], CustomerRow>(
        `SELECT ${COLUMNS} FROM customers WHERE id = ? AND workspace_id = ?`,
      )
      .get(id, this.actor.workspaceId);
    if (!row) throw notFound('Customer', id, 'find_customers');
    return this.#toCustomer(row);
  }
}

/** `text` with LIKE wildcards escaped. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
