import {
  ALLOW,
  type AuditEntry,
  type AuditRow,
  type AuditStore,
  type ClaimGuard,
  type Connection,
  createGatehouse,
  defineGuard,
  deny,
  type Guard,
  type JsonObject,
  jsonSchema,
  MemoryRateBucketStore,
  MemoryReplayStore,
  type OutwardGuard,
  ToolError,
  type UnitOfWork,
} from '@gatehousejs/core';
import {
  killSwitchGuards,
  type RateGuardOptions,
  rateGuard,
  replayGuard,
  rightsGuard,
  type SwitchReader,
  tenantGuard,
  untrustedTextGuard,
} from '@gatehousejs/guards';

const rowSchema = {
  type: 'object',
  properties: { text: { type: 'string', maxLength: 100 } },
  required: ['text'],
};
const emptySchema = { type: 'object', properties: {} };

/** What a unit of the desk stages until it commits: the rows and audit rows of one call. */
interface Staged {
  readonly rows: string[];
  readonly audit: AuditRow[];
}

/**
 * A unit of work that commits what a call staged only when the call's work
 * resolves (atomic, like a database transaction), and can be made to fail
 * before it begins, as a busy database would: what the kit's guard suites
 * need to see a fenced-out call write nothing.
 */
export class StagedUnitOfWork implements UnitOfWork<Staged> {
  readonly atomic = true;
  /** When set, the next units fail to begin (a store outage): nothing of them runs. */
  failing = false;
  constructor(
    private readonly rows: string[],
    private readonly audit: AuditRow[],
  ) {}
  async run<T>(work: (handle: Staged) => Promise<T>): Promise<T> {
    if (this.failing)
      throw new ToolError({
        code: 'store_unavailable',
        message: 'The database is busy.',
        fix: 'Retry shortly.',
      });
    const staged: Staged = { rows: [], audit: [] };
    const result = await work(staged);
    this.rows.push(...staged.rows);
    this.audit.push(...staged.audit);
    return result;
  }
}

/** An audit store that stages rows in the unit they were written in (and keeps those written outside one). */
class StagedAudit implements AuditStore {
  constructor(readonly rows: AuditRow[]) {}
  async append(row: AuditRow, unit?: unknown): Promise<void> {
    ((unit as Staged | undefined)?.audit ?? this.rows).push(row);
  }
  async list(query: { readonly limit: number }): Promise<readonly AuditRow[]> {
    return this.rows.slice(-query.limit);
  }
}

/** Kill switches that are never on: the suites prove other kinds. */
const SWITCHES_OFF: SwitchReader = { isGlobalOn: async () => false, tenantAccess: async () => true };

/** What one suite case controls. */
export interface DeskToggles {
  /** The unit guard refuses while true. */
  refuseInUnit: boolean;
  /** The write tool waits for this promise before it writes (a slow call). */
  hold?: Promise<void> | undefined;
  /** What `prepare` and `run` of the outward tool would send. */
  message: string;
  /** The outward tool's run throws a ToolError while true (the service refuses). */
  refuseInRun: boolean;
}

/** Options of {@link guardDesk}. */
export interface GuardDeskOptions {
  readonly claim?: ClaimGuard;
  readonly outward?: OutwardGuard;
  readonly rate?: Omit<RateGuardOptions, 'store'>;
  readonly clock?: () => Date;
}

const RIGHTS = ['rows.write', 'rows.notify'] as const;
type Right = (typeof RIGHTS)[number];

/** A connection of the desk: tenant `t1` unless said otherwise, with every right unless said otherwise. */
export function deskConnection(overrides: Partial<Connection<Right>> = {}): Connection<Right> {
  return {
    connectionId: 'c1',
    tenantId: 't1',
    creatorId: 'p1',
    clientName: 'guard suite',
    channel: 'mcp',
    rights: new Set(RIGHTS),
    ...overrides,
  };
}

/**
 * A small server on which a guard kind's suite runs: `add_row` (a silent
 * write that stages a row in the unit of work), `send_message` (a notify
 * tool whose sends are recorded), the duties core requires, the claim and
 * outward guards under test (the built-in replay guard when no claim guard
 * is given), and a unit guard the case can make refuse.
 */
export function guardDesk(options: GuardDeskOptions = {}) {
  const rows: string[] = [];
  const auditRows: AuditRow[] = [];
  const sent: string[] = [];
  const toggles: DeskToggles = { refuseInUnit: false, message: 'Hello', refuseInRun: false };
  let runs = 0;
  const unitOfWork = new StagedUnitOfWork(rows, auditRows);
  const gh = createGatehouse({
    rights: RIGHTS,
    ports: { mailer: { effect: 'notify', port: { send: (text: string) => void sent.push(text) } } },
    services: (_connection, ports, unit: Staged | undefined) => ({
      async add(text: string) {
        runs++;
        await toggles.hold;
        if (!unit) throw new Error('add_row runs in a unit of work');
        unit.rows.push(text);
        return { id: `r${rows.length + unit.rows.length}`, text };
      },
      send(text: string) {
        if (toggles.refuseInRun)
          throw new ToolError({ code: 'conflict', message: 'The mail service refuses.', fix: 'Wait.' });
        ports.mailer.send(text);
        return { sent: 1 };
      },
    }),
  });
  const presenter = { outputSchema: { type: 'object' }, present: (value: JsonObject) => value };
  /** A unit guard the case makes refuse (`toggles.refuseInUnit`), on both tools. */
  const refusing = defineGuard({
    kind: 'unit',
    name: 'refusing',
    check: () =>
      toggles.refuseInUnit
        ? deny({ code: 'conflict', message: 'The unit guard refuses.', fix: 'Retry later.' })
        : ALLOW,
  });
  const addRow = gh.defineTool({
    name: 'add_row',
    description: 'Adds a row.',
    effect: 'write',
    requires: ['rows.write'],
    input: jsonSchema<{ text: string }>(rowSchema),
    presenter,
    guards: [refusing],
    run: ({ input, services }) => services.add(input.text),
  });
  const sendMessage = gh.defineTool({
    name: 'send_message',
    description: 'Sends the message to the owner.',
    effect: 'notify',
    requires: ['rows.notify'],
    input: jsonSchema<Record<string, never>>(emptySchema),
    presenter,
    guards: [refusing],
    prepare: () => ({ content: { text: toggles.message }, summary: 'Send the message' }),
    run: ({ services }) => services.send(toggles.message),
  });
  const guards: Guard[] = [
    tenantGuard(),
    rightsGuard(),
    ...killSwitchGuards({ switches: SWITCHES_OFF }),
    untrustedTextGuard(),
    options.claim ?? replayGuard({ store: new MemoryReplayStore() }),
    ...(options.outward ? [options.outward] : []),
    ...(options.rate ? [rateGuard({ ...options.rate, store: new MemoryRateBucketStore() })] : []),
  ];
  const server = gh.createServer({
    name: 'guard-suite',
    version: '1.0.0',
    tools: options.outward ? [addRow, sendMessage] : [addRow],
    authenticate: async () => ({ ok: false, status: 401, reason: 'Not used by the suites.' }),
    audit: new StagedAudit(auditRows),
    unitOfWork,
    guards,
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return {
    server,
    rows,
    sent,
    toggles,
    unitOfWork,
    /** The audit rows of successful calls (committed with their unit). */
    audited: () => auditRows.filter((row: AuditEntry) => row.outcome === 'ok').map((row) => row.action),
    /** How many times `add_row`'s run started. */
    runs: () => runs,
  };
}
