import type { ToolDefinition } from '@gatehousejs/core';
import { presentInstant } from '@gatehousejs/presenters';
import type { Right } from '../../domain/model.js';
import { alertRuleListPresenter } from '../../presenters.js';
import { muteAlertsInput } from '../../schemas.js';
import type { Services } from '../../services/index.js';
import type { BookingGatehouse } from '../gatehouse.js';

/**
 * `mute_alerts` (alert): the preview lists the rules and the end of the mute
 * (a full time per I20; confirmation compares its instant and zone, not its
 * distance from now); confirming applies it.
 */
export function alertTools(gh: BookingGatehouse): ToolDefinition<Right, Services>[] {
  return [
    gh.defineTool({
      name: 'mute_alerts',
      title: 'Mute alerts',
      description:
        'Mutes alert rules of this workspace (all, or the ones listed) until a time at most a day ahead.',
      effect: 'alert',
      requires: ['alerts.manage'],
      input: muteAlertsInput,
      presenter: alertRuleListPresenter,
      prepare: async ({ input, services, now }) => {
        const plan = await services.alerts.planMute(input.rule_ids, input.until, input.reason);
        const until = presentInstant(plan.until, { now });
        return {
          content: { rules: plan.rules.map((r) => ({ id: r.id, name: r.name })), until, reason: plan.reason },
          summary: `mute ${plan.rules.length} alert rule(s) until ${until.local} (${until.zone})`,
        };
      },
      run: async ({ input, services }) => {
        const plan = await services.alerts.planMute(input.rule_ids, input.until, input.reason);
        return { rules: await services.alerts.mute(plan) };
      },
    }),
  ];
}
