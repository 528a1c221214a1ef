import type { Actor, Technician } from '../domain/model.js';
import { notFound, type ServiceDeps } from './support.js';

interface TechnicianRow {
  readonly id: string;
  readonly name: string;
  readonly phone: string;
  readonly on_call: 0 | 1;
}

/** A technician with the number the pager port calls; the phone number stays inside the services. */
export interface ReachableTechnician extends Technician {
  readonly phone: string;
}

const toTechnician = (row: TechnicianRow): ReachableTechnician => ({
  id: row.id,
  name: row.name,
  phone: row.phone,
  onCall: row.on_call === 1,
});

/** Technicians of the actor's workspace (I3). */
export class TechnicianService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
  ) {}

  /** Every technician, or only those on call, by name. */
  find(onCall?: boolean): ReachableTechnician[] {
    const rows = this.deps.db
      .prepare<[string], TechnicianRow>('SELECT * FROM technicians WHERE workspace_id = ? ORDER BY name')
      .all(this.actor.workspaceId);
    return rows.map(toTechnician).filter((t) => onCall === undefined || t.onCall === onCall);
  }

  /** One technician; `not_found` for an id of another workspace. */
  get(id: string): ReachableTechnician {
    const row = this.deps.db
      .prepare<[string, string], TechnicianRow>('SELECT * FROM technicians WHERE id = ? AND workspace_id = ?')
      .get(id, this.actor.workspaceId);
    if (!row) throw notFound('Technician', id, 'find_technicians');
    return toTechnician(row);
  }
}
