import {
  cachedPeople,
  createCredentials,
  createSwitches,
  type PeopleSource,
  toolsetVisibility,
} from '@gatehousejs/access';
import {
  type AuditStore,
  type ClaimGuard,
  createGatehouse,
  type GatehouseServer,
  MemoryAuditStore,
  MemoryCredentialStore,
  MemoryPendingActionStore,
  MemoryReplayStore,
  MemorySwitchStore,
  type OutwardGuard,
  type PendingStatus,
  type ReplayStore,
  separateCommits,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import {
  confirmGuard,
  killSwitchGuards,
  replayGuard,
  rightsGuard,
  type SwitchReader,
  tenantGuard,
  untrustedTextGuard,
} from '@gatehousejs/guards';
import type { ContractActor, ContractGrant, ContractHost } from '../../../src/index.js';
import { type DeskData, NoteService, RIGHTS, type Right, seedNotes } from './domain.js';
import type { Flaws } from './flaws.js';
import { notePresenter } from './presenters.js';
import { capturingLogger, flawedServer } from './server.js';
import { deskTools, type Services } from './tools.js';

type Standing = { active: boolean; rights: Right[] };

/** The minimal host as the contract fixture drives it, plus what its fixture reads. */
export interface NotesHost extends ContractHost {
  readonly data: DeskData;
  /** The current version of a note, as get_note presents it. */
  versionOf(id: string): string;
}

/** The I9 flaw: a dead mark puts the action back to pending, so a refused confirmation's token confirms later. */
class RevivingPendingStore extends MemoryPendingActionStore {
  override async transition(id: string, from: readonly PendingStatus[], to: PendingStatus): Promise<boolean> {
    return super.transition(id, from, to === 'failed' ? 'pending' : to);
  }
}

/** The I10 flaw: a replay store that keeps nothing, so every re-sent write runs again. */
const forgetfulReplay: ReplayStore = {
  begin: async () => ({ state: 'started', fence: 'forgotten' }),
  complete: async () => true,
  release: async () => {},
  holds: async () => true,
  renew: async () => true,
};

/** The I6 flaw: kill switch guards reading switches nobody sets, so the operator's switch changes nothing. */
const unswitched: SwitchReader = { isGlobalOn: async () => false, tenantAccess: async () => true };

const random = () => crypto.randomUUID().replaceAll('-', '');

/** Where the built server answers (its MCP URL), and how to stop serving it. */
export interface ServedNotes {
  readonly url: URL;
  close(): Promise<void>;
}

/** Serves the built Gatehouse server of the notes host over HTTP on loopback. */
export type ServeNotes = (server: GatehouseServer<Right>, flaws: Flaws) => Promise<ServedNotes>;

/** The default: core's `listen` (SDK v2) on 127.0.0.1, port 0. */
const listenNotes: ServeNotes = (server, flaws) =>
  listen(server, {
    ...(flaws.trustsForeignOrigin ? { allowedOrigins: ['localhost', '127.0.0.1', 'evil.example'] } : {}),
  });

/**
 * Starts the minimal multi-tenant notes host with the given flaws; `serve`
 * decides how its Gatehouse server is hosted (default: {@link listenNotes}).
 */
/** Guards of a kind to plug in instead of the built-in ones (a team's own replay or confirm). */
export interface GuardSwaps {
  readonly claim?: () => ClaimGuard;
  readonly outward?: () => OutwardGuard;
}

export async function startNotesHost(
  flaws: Flaws = {},
  serve: ServeNotes = listenNotes,
  swaps: GuardSwaps = {},
): Promise<NotesHost> {
  const audit = new MemoryAuditStore();
  const dropping: AuditStore = { append: async () => {}, list: async () => [] };
  const data: DeskData = { notes: seedNotes(), reminders: [], outbox: [] };
  let skewMs = 0;
  const clock = () => new Date(Date.now() + skewMs);
  const standings = new Map<string, Standing>([
    ['t1/alice', { active: true, rights: [...RIGHTS] }],
    ['t1/bob', { active: true, rights: ['notes.read'] }],
    ['t2/bea', { active: true, rights: [...RIGHTS] }],
  ]);
  const live: PeopleSource<Right> = { current: async (t, p) => standings.get(`${t}/${p}`) };
  const people = flaws.cachedRights ? cachedPeople(live, { ttlMs: 60_000 }) : live;
  const credentials = createCredentials({
    store: new MemoryCredentialStore(),
    audit,
    people,
    rights: RIGHTS,
  });
  const switches = createSwitches({ store: new MemorySwitchStore(), audit });
  const logLines: string[] = [];
  const mailer = { send: (text: string) => void data.outbox.push(text) };
  const gh = createGatehouse({
    rights: RIGHTS,
    ports: { mailer: { effect: flaws.outwardAsWrite ? 'write' : 'notify', port: mailer } },
    services: (connection, ports): Services => ({
      notes: new NoteService(data, connection, flaws),
      mailer: ports.mailer,
    }),
  });
  const server = gh.createServer({
    name: 'notes-desk',
    version: '1.0.0',
    tools: deskTools(gh, flaws, data),
    authenticate: credentials.authenticate,
    guards: [
      tenantGuard(),
      rightsGuard(),
      ...killSwitchGuards({
        switches: flaws.ignoresKillSwitch ? unswitched : switches,
        retryAfterSeconds: 30,
      }),
      ...(flaws.listOnlyVisibility ? [] : [toolsetVisibility({ compact: ['find_notes', 'get_note'] })]),
      swaps.claim?.() ?? replayGuard({ store: flaws.noReplay ? forgetfulReplay : new MemoryReplayStore() }),
      swaps.outward?.() ??
        confirmGuard({
          store: flaws.keepsRefusedTokens ? new RevivingPendingStore() : new MemoryPendingActionStore(),
        }),
      untrustedTextGuard(),
    ],
    logger: capturingLogger(logLines),
    audit: flaws.droppedAudit ? dropping : audit,
    unitOfWork: separateCommits(),
    clock,
  });
  const served = await serve(flawedServer(server, flaws, logLines), flaws);
  const tokens = new Map<string, string>();
  const presenter = notePresenter(flaws);
  const ops = { actorId: 'ops', channel: 'cli' };

  // #region host
  return {
    endpoint: { transport: 'http', url: served.url },
    home: { tenantId: 't1', personId: 'alice' },
    other: { tenantId: 't2', personId: 'bea' },
    data,
    async mint(actor: ContractActor, grant?: ContractGrant) {
      const held = standings.get(`${actor.tenantId}/${actor.personId}`)?.rights ?? [];
      const { token, credential } = await credentials.mint({
        tenantIds: [actor.tenantId],
        creatorId: actor.personId,
        rights: (grant?.rights as Right[] | undefined) ?? held,
        clientLabel: 'contract suite',
        toolset: grant?.toolset ?? null,
      });
      tokens.set(token, credential.id);
      return token;
    },
    async revoke(token) {
      await credentials.revoke(tokens.get(token) ?? '', { actorId: 'alice' });
    },
    async removeRole(actor) {
      standings.set(`${actor.tenantId}/${actor.personId}`, { active: true, rights: ['notes.read'] });
    },
    async deactivate(actor) {
      const key = `${actor.tenantId}/${actor.personId}`;
      standings.set(key, { active: false, rights: standings.get(key)?.rights ?? [] });
    },
    setGlobalSwitch: (on) => switches.setGlobal(on, ops),
    setTenantAccess: (tenantId, enabled) => switches.setTenantAccess(tenantId, enabled, ops),
    async changeBehindCaller() {
      const note = data.notes.find((n) => n.id === 'n1');
      if (note) note.body = `${note.body} (edited in the web app)`;
    },
    snapshot: async () => ({ notes: data.notes, reminders: data.reminders }),
    sentMessages: async () => data.outbox.length,
    auditRows: async () => audit.rows,
    logLines: async () => logLines,
    async seedCanaries(text) {
      for (const note of data.notes) note.body = text;
    },
    async seedDecoys(decoy) {
      for (const note of data.notes) note.shareSecret = `share_${decoy}`;
    },
    async advanceClock(ms) {
      skewMs += ms;
    },
    foreignCredentials: async () => ({
      apiToken: `api_live_${random()}`,
      sessionCookie: `session=s_${random()}`,
    }),
    versionOf(id) {
      const note = data.notes.find((n) => n.id === id);
      return note ? presenter.versionOf(note) : 'unknown';
    },
    close: () => served.close(),
  };
  // #endregion host
}
