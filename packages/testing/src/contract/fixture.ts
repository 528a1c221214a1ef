import type { Effect, Json, JsonObject } from '@gatehousejs/core';
import type { StdioConnection } from '../stdioClient.js';
import type { McpEra } from '../types.js';
import type { ClientOpener } from './client.js';

/** A person in a tenant, as the host knows them. */
export interface ContractActor {
  readonly tenantId: string;
  readonly personId: string;
}

/** What a minted credential may do; without it, everything the person holds. */
export interface ContractGrant {
  /** The rights to grant, in the host's vocabulary. */
  readonly rights?: readonly string[];
  /** A named toolset (e.g. a compact one), when the host has them. */
  readonly toolset?: string;
}

/**
 * Where a started host answers. Over HTTP the kit sends `Authorization:
 * Bearer <token>`; over stdio it starts `command` once per credential with the
 * token in the environment variable `tokenVariable`, or, when the endpoint
 * has `connect`, connects a server in this process per credential over a
 * pair of streams (no process start; for checks that need no process boundary).
 */
export type HostEndpoint =
  | {
      readonly transport: 'http';
      readonly url: string | URL;
      /** Headers sent with every request (e.g. a tenant header). */
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly transport: 'stdio';
      readonly command: string;
      readonly args?: readonly string[];
      readonly cwd?: string;
      readonly env?: Readonly<Record<string, string>>;
      readonly tokenVariable: string;
    }
  | {
      readonly transport: 'stdio';
      /** Connects a fresh server in this process for `token` (none: no credential). */
      connect(token: string | undefined): Promise<StdioConnection>;
    };

/**
 * An audit row as the kit reads it (I15). Core's `AuditRow` (and so
 * `MemoryAuditStore.rows` or `AuditStore.list`) fits as it is.
 */
export interface ContractAuditRow {
  /** The row's unique id (core's is a time-sortable ULID); tells the rows a call added apart from older ones. */
  readonly id?: string;
  /** When the row was written, epoch milliseconds or ISO 8601; the kit orders rows by it, then by `id`. */
  readonly at?: number | string;
  readonly channel: string;
  readonly action?: string;
  readonly connectionId?: string | null;
  readonly clientName?: string | null;
}

/** Credentials of other kinds the MCP endpoint must refuse with 401 (I5). */
export interface ForeignCredentials {
  /** A valid token of the product's own API. */
  readonly apiToken?: string;
  /** A valid session cookie of the product's UI, as a `Cookie` header value. */
  readonly sessionCookie?: string;
  /** An OAuth access token issued for another audience (I21). */
  readonly otherAudienceToken?: string;
}

/**
 * One running host in its initial state, with the handles the checks use to
 * act on it and to observe effects (rows, messages, audit rows, log lines).
 * Optional members switch on the checks that need them; without them those
 * checks are reported as skipped, never as passed.
 */
export interface ContractHost {
  readonly endpoint: HostEndpoint;
  /** The caller: holds every right in its tenant. */
  readonly home: ContractActor;
  /** A person of another tenant, holding every right there. */
  readonly other: ContractActor;
  /** Mints an MCP token for `actor`; returns the token text. */
  mint(actor: ContractActor, grant?: ContractGrant): Promise<string>;
  /** Takes away the role that grants write rights (I4). */
  removeRole(actor: ContractActor): Promise<void>;
  /** Deactivates the person (I4). */
  deactivate(actor: ContractActor): Promise<void>;
  /** Turns the global kill switch on or off (I6). */
  setGlobalSwitch(on: boolean): Promise<void>;
  /** Turns agent access for one tenant on or off (I6). */
  setTenantAccess(tenantId: string, enabled: boolean): Promise<void>;
  /** Every product row of every tenant, as JSON; compared in canonical form. */
  snapshot(): Promise<unknown>;
  /** How many messages (mails, pages, webhooks, jobs) were sent so far. */
  sentMessages(): Promise<number>;
  /** Revokes a minted token (I5). */
  revoke?(token: string): Promise<void>;
  /** Changes, as another channel would, the object `tool`'s sample refers to (I9, I12). */
  changeBehindCaller?(tool: string): Promise<void>;
  /**
   * Every audit row written so far, of every channel and tenant, in any
   * order: the kit sorts them (by `at`, then `id`) and takes as a call's rows
   * those that were not there before it (by `id`, else by content) (I15).
   */
  auditRows?(): Promise<readonly ContractAuditRow[]>;
  /** Log lines written so far (I17). */
  logLines?(): Promise<readonly string[]>;
  /** Writes text containing `canary` into every third-party field of every row (I16). */
  seedCanaries?(canary: string): Promise<void>;
  /** Writes a value containing `decoy` into every secret column of every row (I17). */
  seedDecoys?(decoy: string): Promise<void>;
  /** Credentials of other kinds, valid where they belong (I5). */
  foreignCredentials?(): Promise<ForeignCredentials>;
  /**
   * A person approves the pending action with this id on the product's page,
   * as the page does (signed in, approving exactly what it shows); for tools
   * whose preview says `approval: 'person'` (I9). Answers whether it executed.
   */
  approveAsPerson?(pendingActionId: string): Promise<boolean>;
  /** Moves the server's clock forward (confirm-token expiry, I9). */
  advanceClock?(ms: number): Promise<void>;
  /** Stops the host and releases what it opened. */
  close(): Promise<void>;
}

/** Arguments, given as they are or computed from the started host (e.g. a current version). */
export type ArgsSource<H> = JsonObject | ((host: H) => JsonObject | Promise<JsonObject>);

/**
 * A tool that lists or searches rows, as the I3 list check calls it: as
 * `home` its result must show `home`'s marker and never `other`'s; as
 * `other`, `other`'s marker, so the check cannot pass on a marker no row holds.
 *
 * @example
 * find_notes: { listing: { args: {}, home: 'Gate code', other: 'leaking valve' } }
 */
export interface ListingFixture<H = ContractHost> {
  /** Arguments that list rows of the caller's tenant; default the tool's sample. */
  readonly args?: ArgsSource<H>;
  /** A string that only rows of `home`'s tenant hold (an id, a name) and that `args` lists. */
  readonly home: string;
  /** A string that only rows of `other`'s tenant hold and that the same call lists for `other`. */
  readonly other: string;
  /** The arguments of the call as `other`; default `args`. */
  readonly otherArgs?: ArgsSource<H>;
}

/** What the kit needs to know about one tool beyond `tools/list`. */
export interface ToolFixture<H = ContractHost> {
  /** The effect class; overrides the annotations, which are only hints. */
  readonly effect?: Effect;
  /** Arguments that succeed for `home` (and, for writes, change something). */
  readonly sample?: ArgsSource<H>;
  /** The sample aimed at `other`'s objects: valid ids of the other tenant (I3). */
  readonly foreign?: ArgsSource<H>;
  /** The argument that takes a time (I20); `value` renders local time + zone (default `{ local, zone }`). */
  readonly time?: { readonly argument: string; readonly value?: (local: string, zone: string) => Json };
  /** A create tool's duplicate guard (I11): `second` has the sample's business key, other details. */
  readonly duplicate?: {
    readonly second: ArgsSource<H>;
    /** The sibling update tool the error must name. */
    readonly updateTool: string;
    /** Where the created id sits in `result`; default `id`. */
    readonly idPath?: string;
  };
  /** An update tool's version argument (I12): how to read the current version first. */
  readonly version?: {
    readonly read: { readonly tool: string; readonly args: ArgsSource<H> };
    /** The argument carrying the version; default `version`. */
    readonly argument?: string;
    /** Where the version sits in the read tool's `result`; default `version`. */
    readonly path?: string;
  };
  /** A batch tool (I13): arguments whose `expected_count` differs from the `matches` they select. */
  readonly batch?: { readonly mismatch: ArgsSource<H>; readonly matches: number };
  /**
   * A tool that lists or searches rows (I3): how to call it and the marker
   * each tenant's rows hold. Every `read` tool with no required id argument
   * needs one, or `false` when it returns no rows of a tenant; else its I3
   * list case fails.
   */
  readonly listing?: ListingFixture<H> | false;
}

/** Features that arrive with later guards; a check is registered only when its feature is declared. */
export interface ContractCapabilities {
  /** Silent writes are replay-protected (I10). */
  readonly replay?: boolean;
  /** Outward tools take two steps through `confirm_action` (I9). */
  readonly confirm?: boolean;
  /** Every MCP write writes one audit row with channel `mcp` (I15); needs `auditRows`. */
  readonly audit?: boolean;
}

/**
 * How a host plugs into the contract suite: how to start it, and what the
 * kit must know about its tools. Tools themselves are discovered from
 * `tools/list`, so a new tool is covered without new test code.
 */
export interface ContractFixture<H extends ContractHost = ContractHost> {
  /** Names the suite, e.g. `booking`. */
  readonly name: string;
  /** Starts a fresh host in its initial state; called once per check. */
  start(): Promise<H>;
  /** Per-tool knowledge, by tool name. */
  readonly tools?: Readonly<Record<string, ToolFixture<H>>>;
  /** A grant that hides at least one tool (toolset, fewer rights) for the visibility check (I7). */
  readonly limited?: ContractGrant;
  readonly capabilities?: ContractCapabilities;
  /** The protocol revision to speak; default `2026-07-28`. */
  readonly era?: McpEra;
  /**
   * Opens each credential's client; default the kit's raw client. Set it to
   * run the suite through an SDK client (e.g. one pinned to an older
   * protocol revision). Requests that set headers still use the raw client.
   */
  readonly client?: ClientOpener;
}
