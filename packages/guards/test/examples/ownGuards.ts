/**
 * A team's own guards, one of each kind, on a small notes desk: what
 * "writing your own guard" in the guards docs quotes. The claim and outward
 * guards are whole second implementations (in memory) of the kinds the
 * replay and confirm guards implement, so the kit's suites can prove the
 * kinds' contracts against them too.
 */
import { createSwitches } from '@gatehousejs/access';
import {
  type AdmissionGuard,
  ALLOW,
  allow,
  type ClaimDecision,
  type ClaimedAction,
  type ClaimGuard,
  createGatehouse,
  type Decision,
  deny,
  digest,
  type GatehouseServer,
  type JsonObject,
  type Logger,
  MemoryAuditStore,
  MemorySwitchStore,
  type OutputGuard,
  type OutwardGuard,
  type PendingAction,
  type PendingActionUpdate,
  type PendingStatus,
  type RateGuard,
  separateCommits,
  sha256Hex,
  type Telemetry,
  type ToolCall,
  type VisibilityGuard,
} from '@gatehousejs/core';
import { heartbeat } from '@gatehousejs/core/internal';
import { killSwitchGuards, rightsGuard, tenantGuard, untrustedTextGuard } from '@gatehousejs/guards';
import { z } from 'zod';

// #region admission
/** Admission: every request answers 503 while the team's maintenance window is open. */
export function maintenanceGuard(window: { open: boolean }): AdmissionGuard {
  return {
    kind: 'admission',
    name: 'maintenance',
    admit: () =>
      window.open
        ? { ok: false, status: 503, reason: 'Down for maintenance until 06:00 UTC.', retryAfterSeconds: 600 }
        : ALLOW,
  };
}
// #endregion admission

// #region visibility
/** Visibility: tools in beta are listed and callable only in the workspaces that joined it. */
export function betaGuard(tools: ReadonlySet<string>, workspaces: ReadonlySet<string>): VisibilityGuard {
  return {
    kind: 'visibility',
    name: 'beta',
    tool: (tool, connection) =>
      !tools.has(tool.name) || workspaces.has(connection.tenantId)
        ? ALLOW
        : deny({
            code: 'tool_hidden',
            message: `${tool.name} is hidden: it is in beta and this workspace has not joined it.`,
            fix: 'Ask support to add this workspace to the beta.',
            details: { tool: tool.name },
          }),
  };
}
// #endregion visibility

// #region rate
/** Rate: at most `perDay` calls a connection and UTC day, whatever the effect; a replay gives its call back. */
export function dailyQuotaGuard(perDay: number): RateGuard<string> {
  const used = new Map<string, number>();
  return {
    kind: 'rate',
    name: 'dailyQuota',
    async take(connection, _bucket, now): Promise<Decision<{ readonly token: string }>> {
      const key = `${connection.connectionId}:${new Date(now).toISOString().slice(0, 10)}`;
      const count = used.get(key) ?? 0;
      if (count >= perDay)
        return deny({
          code: 'rate_limited',
          message: `This connection made its ${perDay} calls of today.`,
          fix: 'Retry after midnight UTC.',
          details: { retry_after_seconds: 86_400 - Math.floor((now % 86_400_000) / 1000) },
        });
      used.set(key, count + 1);
      return allow({ token: key });
    },
    async refund(key) {
      used.set(key, Math.max(0, (used.get(key) ?? 1) - 1));
    },
  };
}
// #endregion rate

/** One claim of {@link mapClaimGuard}: its key, fence and the digest of what was sent. */
interface MapClaim {
  readonly key: string;
  readonly fence: number;
}

/** A record of {@link mapClaimGuard}: running under a lease, or completed with its result. */
type MapRecord =
  | { readonly state: 'running'; readonly fence: number; readonly until: number }
  | { readonly state: 'completed'; readonly result: JsonObject; readonly until: number };

// #region claim
/**
 * Claim: the team's own replay protection (here in memory; the same
 * interface over Redis or DynamoDB): the fingerprint of connection, tool
 * and every argument sent, one running claim per fingerprint under a lease
 * with a fencing number, the result kept for `windowMs`.
 */
export function mapClaimGuard(options: {
  leaseMs: number;
  renewMs: number;
  windowMs?: number;
}): ClaimGuard<MapClaim> {
  const records = new Map<string, MapRecord>();
  let fences = 0;
  const windowMs = options.windowMs ?? 300_000;
  const current = (claim: MapClaim, now: number) => {
    const record = records.get(claim.key);
    return record?.state === 'running' && record.fence === claim.fence && record.until > now;
  };
  return {
    kind: 'claim',
    name: 'mapReplay',
    lease: { leaseMs: options.leaseMs, renewMs: options.renewMs },
    async claim(call: ToolCall, clock): Promise<ClaimDecision<MapClaim>> {
      const key = `${call.connection.connectionId}|${call.tool.name}|${digest({ ...call.arguments, ...call.guardArguments })}`;
      const now = clock();
      const found = records.get(key);
      if (found?.state === 'completed' && found.until > now) return { ok: true, replayed: found.result };
      if (found?.state === 'running' && found.until > now)
        return deny({
          code: 'still_running',
          message: `An identical ${call.tool.name} call is still running.`,
          fix: 'Retry the same call in a few seconds.',
          details: { retry_after_seconds: 2 },
        });
      const fence = ++fences;
      records.set(key, { state: 'running', fence, until: now + options.leaseMs });
      return { ok: true, claim: { key, fence } };
    },
    keepAlive: (claim, clock) =>
      heartbeat(async () => {
        if (!current(claim, clock())) return false;
        records.set(claim.key, { state: 'running', fence: claim.fence, until: clock() + options.leaseMs });
        return true;
      }, options.renewMs),
    async complete(claim, result, _unit, now) {
      if (!current(claim, now)) return false;
      records.set(claim.key, { state: 'completed', result, until: now + windowMs });
      return true;
    },
    async held(claim) {
      const record = records.get(claim.key);
      return record === undefined || (record.state === 'running' && record.fence === claim.fence);
    },
    async release(claim) {
      const record = records.get(claim.key);
      if (record?.state === 'running' && record.fence === claim.fence) records.delete(claim.key);
    },
  };
}
// #endregion claim

// #region outward
/**
 * Outward: the team's own pending-action book (here in memory): one-time
 * confirm tokens stored hashed, a claim per confirmation under a lease with
 * a fence, compare-and-set marks. Which refusal kills a token is core's
 * I9 table, whatever this guard does.
 */
export function mapOutwardGuard(options: { ttlMs: number; leaseMs: number; renewMs: number }): OutwardGuard {
  const actions = new Map<string, PendingAction & { readonly fence?: string }>();
  let ids = 0;
  const byToken = (token: string) => [...actions.values()].find((a) => a.tokenHash === sha256Hex(token));
  const strip = ({ fence: _fence, ...action }: PendingAction & { readonly fence?: string }): PendingAction =>
    action;
  return {
    kind: 'outward',
    name: 'mapConfirm',
    ttlMs: options.ttlMs,
    lease: { leaseMs: options.leaseMs, renewMs: options.renewMs },
    async open(draft, now) {
      const token = `tk_${crypto.randomUUID()}`;
      const action: PendingAction = {
        ...draft,
        id: `pa_${++ids}`,
        tokenHash: sha256Hex(token),
        createdAt: now,
        expiresAt: now + options.ttlMs,
        status: 'pending',
      };
      actions.set(action.id, action);
      return { action, token };
    },
    find: async (token) => {
      const found = byToken(token);
      return found && strip(found);
    },
    findById: async (id) => {
      const found = actions.get(id);
      return found && strip(found);
    },
    async claim(action, from, now): Promise<ClaimedAction | undefined> {
      const stored = actions.get(action.id);
      if (!stored) return undefined;
      const lapsed = stored.status === 'claimed' && (stored.claimExpiresAt ?? now) <= now;
      if (!from.includes(stored.status) && !lapsed) return undefined;
      const fence = crypto.randomUUID();
      const claimed = {
        ...strip(stored),
        status: 'claimed' as const,
        claimExpiresAt: now + options.leaseMs,
        fence,
      };
      actions.set(action.id, claimed);
      return claimed;
    },
    keepAlive: (action, clock) =>
      heartbeat(async () => {
        const stored = actions.get(action.id);
        if (stored?.status !== 'claimed' || stored.fence !== action.fence) return false;
        actions.set(action.id, { ...stored, claimExpiresAt: clock() + options.leaseMs });
        return true;
      }, options.renewMs),
    async mark(action, from: readonly PendingStatus[], to, marking?: { readonly set?: PendingActionUpdate }) {
      const stored = actions.get(action.id);
      if (!stored || !from.includes(stored.status)) return false;
      const { fence, ...set } = marking?.set ?? {};
      if (stored.status === 'claimed' && fence !== undefined && stored.fence !== fence) return false;
      const { claimExpiresAt: _cleared, ...rest } = strip(stored);
      actions.set(action.id, { ...rest, ...set, status: to });
      return true;
    },
  };
}
// #endregion outward

// #region output
/** Output: a result that names an internal host is a leak; the call answers internal_error instead. */
export function noInternalHostsGuard(): OutputGuard {
  const internal = /\b[a-z0-9-]+\.internal\b/i;
  return {
    kind: 'output',
    name: 'noInternalHosts',
    leave: (structured, tool) =>
      internal.test(JSON.stringify(structured))
        ? deny({
            code: 'internal_error',
            message: `${tool} named an internal host.`,
            fix: 'Present public names only.',
          })
        : { ok: true, structured },
  };
}
// #endregion output

interface Note {
  readonly id: string;
  readonly tenantId: string;
  readonly text: string;
  /** The UTC hour it was added, as the business-hours guard handed it to run. */
  readonly hour: number;
}

/** The desk the team's guards protect, with what the tests look at. */
export function ownGuardsDesk(
  options: { logger?: Logger; telemetry?: Telemetry; clock?: () => Date; perDay?: number } = {},
) {
  const notes: Note[] = [];
  const mails: string[] = [];
  const maintenance = { open: false };
  const gh = createGatehouse({
    rights: ['notes.read', 'notes.write'] as const,
    ports: { mailer: { effect: 'notify', port: { send: (text: string) => void mails.push(text) } } },
    services: (connection, ports) => ({
      notes: {
        list: () => notes.filter((n) => n.tenantId === connection.tenantId),
        add: (text: string, hour: number) => {
          const note = { id: `n${notes.length + 1}`, tenantId: connection.tenantId, text, hour };
          notes.push(note);
          return note;
        },
      },
      mailer: ports.mailer,
    }),
  });
  const notePresenter = {
    outputSchema: {
      type: 'object',
      properties: { id: { type: 'string' }, text: { type: 'string' }, hour: { type: 'integer' } },
    },
    present: (note: Note) => ({ id: note.id, text: note.text, hour: note.hour }),
  };
  const tools = [
    gh.defineTool({
      name: 'find_notes',
      description: 'Lists the notes of this workspace.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({}),
      presenter: {
        outputSchema: { type: 'object', properties: { notes: { type: 'array' } } },
        present: (list: Note[]) => ({ notes: list.map((n) => notePresenter.present(n)) }),
      },
      run: ({ services }) => services.notes.list(),
    }),
    // #region tool-guards
    gh.defineTool({
      name: 'add_note',
      description: 'Adds a note to this workspace.',
      effect: 'write',
      requires: ['notes.write'],
      input: z.object({ text: z.string().min(1) }),
      presenter: notePresenter,
      guards: (g) => [
        // call: stateless, before the claim; what it allows with reaches run as context.hour
        g.define({
          kind: 'call',
          name: 'businessHours',
          check: ({ now }) => {
            const hour = now.getUTCHours();
            return hour >= 6 && hour < 22
              ? allow({ hour })
              : deny({
                  code: 'invalid_arguments',
                  message: 'Notes are added 06–22 UTC.',
                  fix: 'Retry after 06:00 UTC.',
                });
          },
        }),
        // unit: check-then-act on the unit's own services, so the check and the write commit together
        g.define({
          kind: 'unit',
          name: 'sameText',
          check: ({ input, services }) => {
            const same = services.notes.list().find((n) => n.text === input.text);
            return same
              ? deny({
                  code: 'duplicate',
                  message: `A note with this text exists: ${same.id}.`,
                  fix: 'Add a different text.',
                  details: { existing_id: same.id },
                })
              : ALLOW;
          },
        }),
      ],
      run: ({ input, services, context }) => services.notes.add(input.text, context.hour),
    }),
    // #endregion tool-guards
    gh.defineTool({
      name: 'mail_note',
      description: 'Mails a note to the team.',
      effect: 'notify',
      requires: ['notes.write'],
      input: z.object({ id: z.string() }),
      presenter: {
        outputSchema: { type: 'object', properties: { sent: { type: 'integer' } } },
        present: (n: number) => ({ sent: n }),
      },
      prepare: ({ input, services }) => {
        const note = services.notes.list().find((n) => n.id === input.id);
        return { content: { text: note?.text ?? '' }, summary: `Mail note ${input.id} to the team` };
      },
      run: ({ input, services }) => {
        services.mailer.send(services.notes.list().find((n) => n.id === input.id)?.text ?? '');
        return 1;
      },
    }),
    gh.defineTool({
      name: 'beta_report',
      description: 'Reports where hosts answered from.',
      effect: 'read',
      requires: ['notes.read'],
      input: z.object({ internal: z.boolean() }),
      presenter: {
        outputSchema: { type: 'object', properties: { host: { type: 'string' } } },
        present: (host: string) => ({ host }),
      },
      run: ({ input }) => (input.internal ? 'db-3.internal' : 'db.example.com'),
    }),
  ];
  const audit = new MemoryAuditStore();
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  // #region own-server
  const server: GatehouseServer<'notes.read' | 'notes.write'> = gh.createServer({
    name: 'desk',
    version: '1.0.0',
    tools,
    authenticate: async ({ token }) =>
      token === 'desk-token'
        ? {
            ok: true,
            connection: {
              connectionId: 'c1',
              tenantId: 'ws_1',
              creatorId: 'p1',
              clientName: 'desk',
              channel: 'mcp',
              rights: new Set(['notes.read', 'notes.write'] as const),
            },
          }
        : { ok: false, status: 401, reason: 'Unknown token.' },
    audit,
    unitOfWork: separateCommits(),
    guards: [
      // the duties core requires of every server, built in
      tenantGuard(),
      rightsGuard(),
      ...killSwitchGuards({ switches }),
      untrustedTextGuard(),
      // the team's own, one of each kind
      maintenanceGuard(maintenance),
      betaGuard(new Set(['beta_report']), new Set(['ws_beta'])),
      dailyQuotaGuard(options.perDay ?? 100),
      mapClaimGuard({ leaseMs: 10_000, renewMs: 2_000 }),
      mapOutwardGuard({ ttlMs: 600_000, leaseMs: 10_000, renewMs: 2_000 }),
      noInternalHostsGuard(),
    ],
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  // #endregion own-server
  return { server, notes, mails, audit, maintenance, switches };
}
