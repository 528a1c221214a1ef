import type { Logger } from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import type { ContractHost } from '@gatehousejs/testing';
import { type App, createApp } from '../src/app.js';
import { openScratchDatabase } from '../src/db/memory.js';
import { ticketPresenter } from '../src/mcp/presenters.js';
import { RIGHTS, type Right } from '../src/people.js';

/** A running server on a fresh database, as the contract suite and the other tests drive it. */
export interface TicketsHost extends ContractHost {
  readonly app: App;
  /** The MCP endpoint. */
  readonly url: URL;
  /** The current version of a ticket, as `get_ticket` shows it. */
  versionOf(id: string): Promise<string>;
}

/** A logger that keeps every line, so the suite can check that no argument is logged (I17). */
function capturing(lines: string[]): Logger {
  const write = (level: string) => (record: object, message?: string) => {
    lines.push(JSON.stringify({ level, msg: message, ...record }));
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

const OPERATOR = { actorId: 'operator', channel: 'cli' };
const isRight = (right: string): right is Right => (RIGHTS as readonly string[]).includes(right);

/** Starts the product on a scratch database over HTTP on a free loopback port. */
export async function startHost(): Promise<TicketsHost> {
  const database = await openScratchDatabase();
  const logLines: string[] = [];
  let skewMs = 0;
  let origin = 'http://127.0.0.1';
  const app = createApp(database, {
    origin: () => origin,
    logger: capturing(logLines),
    clock: () => new Date(Date.now() + skewMs),
  });
  const served = await listen(app.server, {
    port: 0,
    // #if console
    fetch: app.console.fetch,
    // #endif
  });
  origin = served.url.origin;
  const credentialOf = new Map<string, string>();

  return {
    app,
    url: served.url,
    endpoint: { transport: 'http', url: served.url },
    home: { tenantId: 'ws_acme', personId: 'p_ada' },
    other: { tenantId: 'ws_globex', personId: 'p_bea' },
    async mint(actor, grant) {
      const person = app.people.get(actor.personId);
      const { token, credential } = await app.credentials.mint({
        tenantIds: [actor.tenantId],
        creatorId: actor.personId,
        rights: grant?.rights?.filter(isRight) ?? (person ? app.people.rightsOf(person) : []),
        clientLabel: 'contract suite',
        toolset: grant?.toolset ?? null,
      });
      credentialOf.set(token, credential.id);
      return token;
    },
    async revoke(token) {
      await app.credentials.revoke(credentialOf.get(token) ?? 'unknown', OPERATOR);
    },
    async removeRole(actor) {
      app.people.setRole(actor.personId, 'viewer');
    },
    async deactivate(actor) {
      app.people.deactivate(actor.personId);
    },
    setGlobalSwitch: (on) => app.switches.setGlobal(on, OPERATOR),
    setTenantAccess: (tenantId, on) => app.switches.setTenantAccess(tenantId, on, OPERATOR),
    snapshot: async () => ({ tickets: await database.all.tickets(), mails: await database.all.mails() }),
    sentMessages: async () => (await database.all.mails()).length,
    auditRows: () => database.stores.audit.list({ limit: 1000 }),
    logLines: async () => logLines,
    async seedCanaries(text) {
      for (const ticket of await database.all.tickets()) await database.all.patch(ticket.id, { body: text });
    },
    async seedDecoys(decoy) {
      for (const ticket of await database.all.tickets())
        await database.all.patch(ticket.id, { portalKey: `pk_${decoy}` });
    },
    async changeBehindCaller() {
      // the product's own pages rename the tickets the samples refer to
      for (const ticket of await database.all.tickets())
        if (ticket.workspaceId === 'ws_acme')
          await database.all.patch(ticket.id, { title: `${ticket.title} (renamed)` });
    },
    async advanceClock(ms) {
      skewMs += ms;
    },
    // #if console
    async approveAsPerson(pendingActionId) {
      const approvals = app.server.approvals;
      const person = await app.people.current('ws_acme', 'p_ada');
      if (!approvals || !person) return false;
      const approver = { personId: 'p_ada', tenantId: 'ws_acme', rights: new Set(person.rights) };
      const view = await approvals.view(pendingActionId, approver);
      const decision = await approvals.approve(pendingActionId, approver, {
        contentHash: view?.contentHash ?? '',
      });
      return decision.outcome === 'executed';
    },
    // #endif
    async versionOf(id) {
      const ticket = (await database.all.tickets()).find((t) => t.id === id);
      return ticket ? ticketPresenter.versionOf(ticket) : 'unknown';
    },
    async close() {
      await served.close();
      await database.close();
    },
  };
}
