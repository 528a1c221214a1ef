import type { SqliteDatabase } from '@gatehousejs/stores';
import { newId } from '../db/ids.js';
import type { AlertMute, OutboundMail, OutboundPage, OutboundPorts, Receipt } from '../domain/model.js';

/**
 * The product's outbound ports. Each writes what it "sends" to an outbound
 * table on the same handle, the transactional outbox a delivery worker would
 * drain, so a send commits with the action that caused it and tests can
 * observe exactly what left. Gatehouse guards them by effect class: the
 * mailer is `notify`, the pager `wake`, the alert control `alert` (I8).
 */
export function createOutboundPorts(db: SqliteDatabase, clock: () => Date): OutboundPorts {
  const mail =
    db.prepare(`INSERT INTO outbound_messages (id, workspace_id, booking_id, customer_id, to_address, subject,
    body, sent_by, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const page =
    db.prepare(`INSERT INTO outbound_pages (id, workspace_id, technician_id, booking_id, to_phone, message,
    sent_by, sent_at) VALUES (?, ?, ?, ?, (SELECT phone FROM technicians WHERE id = ? AND workspace_id = ?), ?, ?, ?)`);
  const muteRule = db.prepare(
    'UPDATE alert_rules SET muted_until = ?, mute_reason = ?, muted_by = ? WHERE id = ? AND workspace_id = ?',
  );
  const logMute = db.prepare(
    'INSERT INTO alert_mutes (id, workspace_id, rule_id, muted_until, reason, muted_by, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const receipt = (prefix: string): Receipt => ({ id: newId(prefix), atMs: clock().getTime() });
  return {
    mailer: {
      send(m: OutboundMail): Receipt {
        const r = receipt('msg');
        mail.run(r.id, m.workspaceId, m.bookingId, m.customerId, m.to, m.subject, m.body, m.sentBy, r.atMs);
        return r;
      },
    },
    pager: {
      send(p: OutboundPage): Receipt {
        const r = receipt('pg');
        page.run(
          r.id,
          p.workspaceId,
          p.technicianId,
          p.bookingId,
          p.technicianId,
          p.workspaceId,
          p.message,
          p.sentBy,
          r.atMs,
        );
        return r;
      },
    },
    alerts: {
      mute(m: AlertMute): Receipt {
        const r = receipt('mute');
        db.transaction(() => {
          for (const rule of m.ruleIds) {
            muteRule.run(m.untilMs, m.reason, m.mutedBy, rule, m.workspaceId);
            logMute.run(newId('mute'), m.workspaceId, rule, m.untilMs, m.reason, m.mutedBy, r.atMs);
          }
        }).immediate();
        return r;
      },
    },
  };
}
