import { newId } from '../db/ids.js';
import type { AlertMute, OutboundMail, OutboundPage, OutboundPorts, Receipt } from '../domain/model.js';

/**
 * The product's outbound ports. Each writes what it "sends" to an outbound
 * table on the caller's transaction, the transactional outbox a delivery
 * worker would drain, so a send commits with the action that caused it and
 * tests can observe exactly what left. Gatehouse guards them by effect
 * class: the mailer is `notify`, the pager `wake`, the alert control `alert` (I8).
 */
export function createOutboundPorts(clock: () => Date): OutboundPorts {
  const receipt = (prefix: string): Receipt => ({ id: newId(prefix), atMs: clock().getTime() });
  return {
    mailer: {
      async send(m: OutboundMail, via): Promise<Receipt> {
        const r = receipt('msg');
        await via
          .insertInto('outbound_messages')
          .values({
            id: r.id,
            workspace_id: m.workspaceId,
            booking_id: m.bookingId,
            customer_id: m.customerId,
            to_address: m.to,
            subject: m.subject,
            body: m.body,
            sent_by: m.sentBy,
            sent_at: r.atMs,
          })
          .execute();
        return r;
      },
    },
    pager: {
      async send(p: OutboundPage, via): Promise<Receipt> {
        const r = receipt('pg');
        await via
          .insertInto('outbound_pages')
          .values((eb) => ({
            id: r.id,
            workspace_id: p.workspaceId,
            technician_id: p.technicianId,
            booking_id: p.bookingId,
            to_phone: eb
              .selectFrom('technicians')
              .select('phone')
              .where('id', '=', p.technicianId)
              .where('workspace_id', '=', p.workspaceId),
            message: p.message,
            sent_by: p.sentBy,
            sent_at: r.atMs,
          }))
          .execute();
        return r;
      },
    },
    alerts: {
      async mute(m: AlertMute, via): Promise<Receipt> {
        const r = receipt('mute');
        for (const rule of m.ruleIds) {
          await via
            .updateTable('alert_rules')
            .set({ muted_until: m.untilMs, mute_reason: m.reason, muted_by: m.mutedBy })
            .where('id', '=', rule)
            .where('workspace_id', '=', m.workspaceId)
            .execute();
          await via
            .insertInto('alert_mutes')
            .values({
              id: newId('mute'),
              workspace_id: m.workspaceId,
              rule_id: rule,
              muted_until: m.untilMs,
              reason: m.reason,
              muted_by: m.mutedBy,
              at: r.atMs,
            })
            .execute();
        }
        return r;
      },
    },
  };
}
