import { presentInstant, sanitizeText, withDefaultZone } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
import { DomainError } from '../domain/errors.js';
import { type Actor, type AlertRule, LIMITS, type OutboundPorts } from '../domain/model.js';
import { invalid, quoted, type ServiceDeps, spokenTime, workspaceOf, zoned } from './support.js';

interface RuleRow {
  readonly id: string;
  readonly name: string;
  readonly muted_until: number | null;
  readonly mute_reason: string | null;
}

/** A mute as it would be applied: which rules, until when, why. */
export interface MutePlan {
  readonly rules: readonly AlertRule[];
  readonly until: Temporal.ZonedDateTime;
  readonly reason: string;
}

/** Alert rules of the actor's workspace, and muting them through the alerts port (an `alert` effect, I8). */
export class AlertService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
    private readonly ports: Pick<OutboundPorts, 'alerts'>,
  ) {}

  /** Every alert rule of the workspace, by name. */
  async find(): Promise<AlertRule[]> {
    const { zone } = await workspaceOf(this.deps, this.actor);
    const rows: RuleRow[] = await this.deps.db
      .selectFrom('alert_rules')
      .select(['id', 'name', 'muted_until', 'mute_reason'])
      .where('workspace_id', '=', this.actor.workspaceId)
      .orderBy('name')
      .execute();
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      mutedUntil: r.muted_until === null ? null : zoned(Number(r.muted_until), zone),
      muteReason: r.mute_reason,
    }));
  }

  /**
   * Checks a mute (rules of this workspace, until in the future and within a
   * day); applies nothing. An `until` sent with only an offset is read in
   * the workspace's zone (same instant); one sent with a zone keeps it.
   */
  async planMute(
    ruleIds: readonly string[] | undefined,
    sent: Temporal.ZonedDateTime,
    reason: string,
  ): Promise<MutePlan> {
    const { zone } = await workspaceOf(this.deps, this.actor);
    const until = withDefaultZone(sent, zone);
    const all = await this.find();
    const unknown = (ruleIds ?? []).filter((id) => !all.some((r) => r.id === id));
    if (unknown.length > 0) {
      throw new DomainError({
        kind: 'not_found',
        message: `Alert rule ${quoted(unknown[0] ?? '')} does not exist in this workspace.`,
        fix: 'Leave rule_ids out to mute every rule; the preview lists each rule with its id.',
        next: { operation: 'mute_alerts' },
        details: { unknown: unknown.map((id) => id.slice(0, 64)) },
      });
    }
    const clock = this.deps.clock();
    const now = clock.getTime();
    const latest = zoned(now + LIMITS.maxMuteHours * 3_600_000, zone);
    if (until.epochMilliseconds <= now || until.epochMilliseconds > latest.epochMilliseconds) {
      throw invalid(
        `Alerts can be muted until a time within the next ${LIMITS.maxMuteHours} hours, not until ${spokenTime(until)}.`,
        `Send an until time after now and before ${latest.toString({ smallestUnit: 'minute' })}.`,
        { until: presentInstant(until, { now: clock }), latest: presentInstant(latest, { now: clock }) },
      );
    }
    const rules = ruleIds === undefined ? all : all.filter((r) => ruleIds.includes(r.id));
    return { rules, until, reason: sanitizeText(reason).trim() };
  }

  /** Mutes the planned rules through the alerts port, in one transaction; returns them as they are now. */
  mute(plan: MutePlan): Promise<AlertRule[]> {
    const ids = plan.rules.map((r) => r.id);
    const mute = {
      workspaceId: this.actor.workspaceId,
      ruleIds: ids,
      untilMs: plan.until.epochMilliseconds,
      reason: plan.reason,
      mutedBy: this.actor.personId,
    };
    return this.deps.transaction(async (deps) => {
      await this.ports.alerts.mute(mute, deps.db);
      const rules = await new AlertService(deps, this.actor, this.ports).find();
      return rules.filter((r) => ids.includes(r.id));
    });
  }
}
