import type { Flag } from '../db/tables.js';
import type { Actor, Technician } from '../domain/model.js';
import { notFound, type ServiceDeps } from './support.js';

interface TechnicianRow {
  readonly id: string;
  readonly name: string;
  readonly phone: string;
  readonly on_call: Flag;
}

/** A technician with the number the pager port calls; the phone number stays inside the services. */
export interface ReachableTechnician extends Technician {
  readonly phone: string;
}

const toTechnician = (row: TechnicianRow): ReachableTechnician => ({
  id: row.id,
  name: row.name,
  phone: row.phone,
  onCall: Number(row.on_call) === 1,
});

const COLUMNS = ['id', 'name', 'phone', 'on_call'] as const;

/** Technicians of the actor's workspace (I3). */
export class TechnicianService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
  ) {}

  /** Every technician, or only those on call, by name. */
  async find(onCall?: boolean): Promise<ReachableTechnician[]> {
    const rows = await this.deps.db
      .selectFrom('technicians')
      .select(COLUMNS)
      .where('workspace_id', '=', this.actor.workspaceId)
      .orderBy('name')
      .execute();
    return rows.map(toTechnician).filter((t) => onCall === undefined || t.onCall === onCall);
  }

  /**
   * One technician; `not_found` for an id of another workspace. Inside a
   * write on PostgreSQL the row stays locked until the write commits, so no
   * other process books the technician between the overlap check and the write.
   */
  async get(id: string): Promise<ReachableTechnician> {
    const row = await this.deps.db
      .selectFrom('technicians')
      .select(COLUMNS)
      .where('id', '=', id)
      .where('workspace_id', '=', this.actor.workspaceId)
      .$if(this.deps.locksRows, (q) => q.forUpdate())
      .executeTakeFirst();
    if (!row) throw notFound('Technician', id, 'find_technicians');
    return toTechnician(row);
  }
}
