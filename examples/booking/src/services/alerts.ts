import { ToolError } from '@gatehousejs/core';
import { presentInstant, sanitizeText, withDefaultZone } from '@gatehousejs/presenters';
import type { Temporal } from 'temporal-polyfill';
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
  readonly #zone: string;

  constructor(
    private readonly deps: ServiceDeps,
    private readonly actor: Actor,
    private readonly ports: Pick<OutboundPorts, 'alerts'>,
  ) {
    this.#zone = workspaceOf(deps, actor).zone;
  }

  /** Every alert rule of the workspace, by name. */
  find(): AlertRule[] {
    const rows = this.deps.db
      .prepare<[string], RuleRow>(
        'SELECT id, name, muted_until, mute_reason FROM alert_rules WHERE workspace_id = ? ORDER BY name',
      )
      .all(this.actor.workspaceId);
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      mutedUntil: r.muted_until === null ? null : zoned(r.muted_until, this.#zone),
      muteReason: r.mute_reason,
    }));
  }

  /**
   * Checks a mute (rules of this workspace, until in the future and within a
   * day); applies nothing. An `until` sent with only an offset is read in
   * the workspace's zone (same instant); one sent with a zone keeps it.
   */
  planMute(ruleIds: readonly string[] | undefined, sent: Temporal.ZonedDateTime, reason: string): MutePlan {
    const until = withDefaultZone(sent, this.#zone);
    const all = this.find();
    const unknown = (ruleIds ?? []).filter((id) => !all.some((r) => r.id === id));
    if (unknown.length > 0) {
      throw new ToolError({
        code: 'not_found',
        message: `Alert rule ${quoted(unknown[0] ?? '')} does not exist in this workspace.`,
        fix: 'Leave rule_ids out to mute every rule; the preview lists each rule with its id.',
        next: { tool: 'mute_alerts' },
        details: { unknown: unknown.map((id) => id.slice(0, 64)) },
      });
    }
    const clock = this.deps.clock();
    const now = clock.getTime();
    const latest = zoned(now + LIMITS.maxMuteHours * 3_600_000, this.#zone);
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

  /** Mutes the planned rules through the alerts port; returns them as they are now. */
  mute(plan: MutePlan): AlertRule[] {
    const ids = plan.rules.map((r) => r.id);
    this.ports.alerts.mute({
      workspaceId: this.actor.workspaceId,
      ruleIds: ids,
      untilMs: plan.until.epochMilliseconds,
      reason: plan.reason,
      mutedBy: this.actor.personId,
    });
    return this.find().filter((r) => ids.includes(r.id));
  }
}
