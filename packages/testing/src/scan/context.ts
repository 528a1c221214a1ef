import { wrongTypeFor } from '../contract/checks/envelope.js';
import { isPlainObject } from '../internal/jsonRpc.js';
import type { McpEra } from '../types.js';
import type { Discovery } from './discover.js';
import { type Exchange, evidenceOf } from './exchange.js';
import { type ScanEndpoint, ScanSession, type SessionAuth } from './session.js';
import type { Evidence, ScanFixture, ScanTool } from './types.js';

/** What the scan may do and how, as the command line set it. */
export interface ScanSettings {
  readonly endpoint: ScanEndpoint;
  readonly credential: 'token' | 'headers' | 'none';
  /** The server is meant to answer without a credential (`--public`). */
  readonly public: boolean;
  /** Calls with the fixture's valid arguments may be sent (`--allow-calls`). */
  readonly allowCalls: boolean;
  /** Such calls may go to tools that may write or act outward (`--allow-writes`). */
  readonly allowWrites: boolean;
  readonly fixture?: ScanFixture;
  /** Per request; default 10 000 ms. */
  readonly timeoutMs: number;
  /** Most refused calls the rate check sends to one tool. */
  readonly rateProbe: number;
}

/** One `tools/call` the scan sent and its answer. */
export interface CallRecord {
  readonly tool: string;
  readonly args: unknown;
  readonly exchange: Exchange;
  /** The call carried valid arguments from the fixture. */
  readonly valid: boolean;
}

/** Arguments a correct server must refuse before the tool runs, and why. */
export interface InvalidBase {
  readonly args: Readonly<Record<string, unknown>>;
  readonly why: string;
}

/**
 * What every scan check works with: the settings, what discovery found,
 * sessions by era and credential, every tool call sent (the I18/I19
 * checks judge all of them) and results shared between checks.
 */
export class ScanContext {
  readonly settings: ScanSettings;
  readonly discovery: Discovery;
  readonly #sessions: ScanSession[] = [];
  readonly #given = new Map<McpEra, Promise<ScanSession>>();
  readonly #calls: CallRecord[] = [];
  readonly #memo = new Map<string, Promise<unknown>>();

  constructor(settings: ScanSettings, discovery: Discovery) {
    this.settings = settings;
    this.discovery = discovery;
  }

  get tools(): readonly ScanTool[] {
    return this.discovery.tools;
  }

  /** The era tool checks speak: the first the server spoke. */
  get era(): McpEra | undefined {
    return this.discovery.eras[0];
  }

  /** Why checks that need the server's tools cannot run, or undefined. */
  get blocked(): string | undefined {
    if (this.discovery.eras.length > 0) return undefined;
    const refused = this.discovery.refused;
    if (refused && this.settings.credential === 'none') {
      return `the server requires a credential (HTTP ${refused.status}); rerun with --token or --header`;
    }
    if (refused) return `the server refused the credential given (HTTP ${refused.status})`;
    return 'the server answered neither server/discover (2026-07-28) nor initialize (2025-11-25)';
  }

  /** The credential values given, masked in every piece of evidence. */
  get secrets(): string[] {
    const { endpoint } = this.settings;
    return endpoint.transport === 'http' ? Object.values(endpoint.credential) : [];
  }

  /** The session with the given credential in `era` (one per era, kept open). */
  session(era: McpEra): Promise<ScanSession> {
    let open = this.#given.get(era);
    if (!open) {
      open = this.open(era, 'given');
      this.#given.set(era, open);
    }
    return open;
  }

  /** A new session with `auth`, closed with the context. */
  async open(era: McpEra, auth: SessionAuth): Promise<ScanSession> {
    const session = await ScanSession.open(this.settings.endpoint, era, auth, this.settings.timeoutMs);
    this.#sessions.push(session);
    return session;
  }

  /** Forgets the kept session of `era` (a probe may have ended a stdio process). */
  drop(era: McpEra): void {
    this.#given.delete(era);
  }

  /** Sends `tools/call` with the given credential in the tool era and records it. */
  async call(
    tool: string,
    args: unknown,
    options: { valid?: boolean; note?: string } = {},
  ): Promise<Exchange> {
    const era = this.era ?? '2026-07-28';
    const session = await this.session(era);
    const exchange = await session.request(
      'tools/call',
      { name: tool, arguments: args },
      options.note ? { note: options.note } : {},
    );
    this.record({ tool, args, exchange, valid: options.valid ?? false });
    return exchange;
  }

  /** Records a call sent another way (a raw probe). */
  record(call: CallRecord): void {
    this.#calls.push(call);
  }

  /** Every call sent to `tool` so far. */
  calls(tool: string): readonly CallRecord[] {
    return this.#calls.filter((call) => call.tool === tool);
  }

  /** Runs `make` once per `key`; later callers get the same promise. */
  memo<T>(key: string, make: () => Promise<T>): Promise<T> {
    let held = this.#memo.get(key) as Promise<T> | undefined;
    if (!held) {
      held = make();
      this.#memo.set(key, held);
    }
    return held;
  }

  /** An exchange as evidence, credentials masked. */
  evidence(exchange: Exchange): Evidence {
    return evidenceOf(exchange, this.secrets);
  }

  /**
   * Arguments every correct server refuses before the tool runs: the
   * required ones left out, else one declared argument of the wrong type.
   * Undefined when the tool declares nothing a call could get wrong.
   */
  invalidBase(tool: ScanTool): InvalidBase | undefined {
    const properties = isPlainObject(tool.inputSchema.properties) ? tool.inputSchema.properties : {};
    const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required.map(String) : [];
    if (required.length > 0) return { args: {}, why: `without the required ${required.join(', ')}` };
    for (const [name, schema] of Object.entries(properties)) {
      const wrong = wrongTypeFor(schema);
      if (wrong !== undefined) return { args: { [name]: wrong }, why: `with ${name} of the wrong type` };
    }
    return undefined;
  }

  /** The fixture's valid arguments for `tool` when the scan may send them, else why not. */
  validArgs(
    tool: ScanTool,
  ): { readonly args: Readonly<Record<string, unknown>> } | { readonly reason: string } {
    if (!this.settings.allowCalls) return { reason: 'needs --allow-calls and safe arguments in --fixture' };
    const known = this.settings.fixture?.tools[tool.name];
    if (!known) return { reason: `the fixture names no arguments for ${tool.name}` };
    if ((!tool.readOnly || known.writes === true) && !this.settings.allowWrites) {
      const why =
        known.writes === true ? 'the fixture says it writes' : 'its hints do not say it is read-only';
      return { reason: `${tool.name} may write or act outward (${why}); needs --allow-writes` };
    }
    return { args: known.arguments };
  }

  /** The first call with the fixture's valid arguments (sent once, shared by the checks), or why there is none. */
  validCall(tool: ScanTool): Promise<Exchange | { readonly reason: string }> {
    return this.memo(`valid:${tool.name}`, async () => {
      const allowed = this.validArgs(tool);
      if ('reason' in allowed) return allowed;
      return this.call(tool.name, allowed.args, { valid: true });
    });
  }

  /** Closes every session the scan opened. */
  async close(): Promise<void> {
    const given = await Promise.allSettled(this.#given.values());
    const open = [...this.#sessions];
    for (const held of given)
      if (held.status === 'fulfilled' && !open.includes(held.value)) open.push(held.value);
    await Promise.allSettled(open.map((session) => session.close()));
  }
}
