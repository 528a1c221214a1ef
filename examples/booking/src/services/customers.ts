import { sql } from 'kysely';
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
const COLUMNS = ['id', 'name', 'email', 'phone', 'notes', 'created_at', 'revision'] as const;

/** Customers of the actor's workspace; every lookup is scoped to it (I3). */
export class CustomerService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
  ) {}

  async #toCustomers(rows: readonly CustomerRow[]): Promise<Customer[]> {
    const { zone } = await workspaceOf(this.deps, this.actor);
    return rows.map((row) => ({
      id: row.id,
      name: row.name,
      email: row.email,
      phone: row.phone,
      notes: row.notes,
      createdAt: zoned(Number(row.created_at), zone),
      revision: row.revision,
    }));
  }

  /** Customers whose name or e-mail contains `query` (case-insensitive), by name. */
  async find(query: string | undefined, limit: number = LIMITS.maxListed): Promise<Customer[]> {
    const pattern = `%${escapeLike((query ?? '').toLowerCase())}%`;
    const rows = await this.deps.db
      .selectFrom('customers')
      .select(COLUMNS)
      .where('workspace_id', '=', this.actor.workspaceId)
      .where(
        sql<boolean>`(lower(name) LIKE ${pattern} ESCAPE '\\' OR lower(email) LIKE ${pattern} ESCAPE '\\')`,
      )
      .orderBy('name')
      .limit(Math.min(limit, LIMITS.maxListed))
      .execute();
    return this.#toCustomers(rows);
  }

  /**
   * One customer; `not_found` for an id of another workspace. Never locked:
   * a create's business key (customer and start) is serialized by core's
   * duplicate check, so creates for one customer still run side by side.
   */
  async get(id: string): Promise<Customer> {
    const row = await this.deps.db
      .selectFrom('customers')
      .select(COLUMNS)
      .where('id', '=', id)
      .where('workspace_id', '=', this.actor.workspaceId)
      .executeTakeFirst();
    const [customer] = await this.#toCustomers(row ? [row] : []);
    if (!customer) throw notFound('Customer', id, 'find_customers');
    return customer;
  }
}

/** `text` with LIKE
 wildcards escaped. */
export const escapeLike = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);
