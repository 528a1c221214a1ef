import type { ClientInfo, JsonRpcRequest, McpEra, RawReply, RequestOptions } from '../types.js';
import { type EnvelopeMaterial, withEnvelope } from './envelope.js';

/** The identity a raw client announces unless told otherwise. */
export const DEFAULT_CLIENT_INFO: ClientInfo = { name: 'gatehouse-raw-client', version: '0.1.0' };

/** The options both transports share. */
export interface CoreOptions {
  /** The protocol revision to speak. */
  readonly era: McpEra;
  /** The client identity announced in `initialize` or the `_meta` envelope. */
  readonly clientInfo?: ClientInfo;
  /** The client capabilities announced likewise; default `{}`. */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /** 2025-11-25 era: run the handshake before the first request; default `true`. */
  readonly autoInitialize?: boolean;
}

const ERAS: readonly string[] = ['2025-11-25', '2026-07-28'];

/** Throws a `TypeError` naming the option when the shared options are unusable. */
export function checkCoreOptions(options: CoreOptions): void {
  if (!ERAS.includes(options.era)) {
    throw new TypeError(`era must be one of ${ERAS.join(', ')}; got ${JSON.stringify(options.era)}`);
  }
  const info = options.clientInfo;
  if (info !== undefined && (typeof info.name !== 'string' || typeof info.version !== 'string')) {
    throw new TypeError('clientInfo needs a string name and version');
  }
}

/**
 * The transport-neutral half of a raw client: ids, the era envelope, the lazy 2025-11-25
 * handshake and the tool helpers. A transport supplies `exchange` and `notify`.
 */
export abstract class ClientCore<TReply extends RawReply, TOptions extends RequestOptions> {
  /** The protocol revision this client speaks. */
  readonly era: McpEra;
  protected readonly material: EnvelopeMaterial;
  readonly #autoInitialize: boolean;
  #nextId = 1;
  #handshake: Promise<TReply> | undefined;

  protected constructor(options: CoreOptions) {
    checkCoreOptions(options);
    this.era = options.era;
    this.material = {
      era: options.era,
      clientInfo: options.clientInfo ?? DEFAULT_CLIENT_INFO,
      capabilities: options.capabilities ?? {},
    };
    this.#autoInitialize = options.autoInitialize ?? true;
  }

  /** Sends one request over the transport and waits for its reply. */
  protected abstract exchange(body: JsonRpcRequest, options: TOptions | undefined): Promise<TReply>;

  /** Sends one notification over the transport. */
  protected abstract notify(method: string): Promise<void>;

  /** Records what a successful handshake negotiated. */
  protected abstract onInitialized(reply: TReply): void;

  /** The next id of the client's counter (1, 2, 3, …); explicit ids do not move it. */
  nextId(): number {
    const id = this.#nextId;
    this.#nextId += 1;
    return id;
  }

  /** The JSON-RPC request `request` would send: the era's `_meta` envelope added to `params`. */
  buildRequest(
    method: string,
    params: Readonly<Record<string, unknown>> = {},
    options?: TOptions,
  ): JsonRpcRequest {
    return {
      jsonrpc: '2.0',
      id: options?.id ?? this.nextId(),
      method,
      params: withEnvelope(this.material, params, options?.meta),
    };
  }

  /**
   * Sends one JSON-RPC request with the era's envelope and returns the reply, whatever it is.
   *
   * In the 2025-11-25 era the handshake runs first unless `autoInitialize` was turned off.
   */
  async request(
    method: string,
    params: Readonly<Record<string, unknown>> = {},
    options?: TOptions,
  ): Promise<TReply> {
    if (this.era === '2025-11-25' && this.#autoInitialize && method !== 'initialize') {
      await this.initialize();
    }
    return this.exchange(this.buildRequest(method, params, options), options);
  }

  /**
   * Runs the 2025-11-25 handshake once: `initialize`, then `notifications/initialized` when the
   * server answered with a result. Later calls return the first reply. Throws in the 2026-07-28
   * era, which has no handshake (send `server/discover` with `discover()` instead).
   */
  initialize(): Promise<TReply> {
    if (this.era !== '2025-11-25') {
      return Promise.reject(new TypeError(`the ${this.era} era has no initialize handshake; use discover()`));
    }
    this.#handshake ??= this.#handshakeOnce();
    return this.#handshake;
  }

  async #handshakeOnce(): Promise<TReply> {
    const { clientInfo, capabilities } = this.material;
    const body = this.buildRequest('initialize', { protocolVersion: this.era, capabilities, clientInfo });
    const reply = await this.exchange(body, undefined);
    if (reply.result !== undefined) {
      this.onInitialized(reply);
      await this.notify('notifications/initialized');
    }
    return reply;
  }

  /** Sends `server/discover`, the 2026-07-28 replacement for the handshake. */
  discover(options?: TOptions): Promise<TReply> {
    return this.request('server/discover', {}, options);
  }

  /** Sends `tools/list`; the reply's `result.tools` is the server's list, unfiltered. */
  listTools(options?: TOptions): Promise<TReply> {
    return this.request('tools/list', {}, options);
  }

  /**
   * Sends `tools/call` with `args` as `arguments` (any value, even one the tool's schema
   * refuses). Tool errors come back in `result.isError`; nothing is thrown for them.
   */
  callTool(name: string, args: unknown = {}, options?: TOptions): Promise<TReply> {
    return this.request('tools/call', { name, arguments: args }, options);
  }
}
