import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { ClientCore, type CoreOptions, checkCoreOptions } from './internal/clientCore.js';
import { bodyValue, isPlainObject, messagesIn, replyFor, requestIdOf } from './internal/jsonRpc.js';
import { MessageRouter } from './internal/messageRouter.js';
import type { JsonRpcMessage, JsonRpcRequest, RawMcpClient, RawReply, RequestOptions } from './types.js';

/** Options of {@link RawStdioClient.spawn}. */
export interface RawStdioClientOptions extends CoreOptions {
  /** The executable to start, e.g. `process.execPath`. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Variables set over the parent's environment; one set to `undefined` is removed. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  /** How long to wait for a response; default 10 000 ms. */
  readonly timeoutMs?: number;
}

/** Options of {@link RawStdioClient.send}. */
export interface StdioSendOptions {
  /** The exact line to write instead of `JSON.stringify(body)` (a newline is appended). */
  readonly rawLine?: string;
  /** Whether to wait for the response to the id in the body; default: when it is a request with an id. */
  readonly awaitResponse?: boolean;
}

/** How the server process ended. */
export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

function isRequestWithId(value: unknown): boolean {
  const parsed = bodyValue(value);
  return isPlainObject(parsed) && typeof parsed.method === 'string' && requestIdOf(parsed) !== undefined;
}

function childEnv(env: RawStdioClientOptions['env']): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...env })) {
    if (value !== undefined) merged[name] = value;
  }
  return merged;
}

/**
 * A stdio MCP client that sends exactly what a test says and ignores every hint.
 *
 * It spawns the server, writes newline-delimited JSON-RPC to its stdin and correlates
 * responses by id (out of order is fine). JSON-RPC and tool errors resolve as a
 * {@link RawReply}; a request rejects only when no response arrives within the timeout or the
 * process ends first (the error carries the tail of stderr). In the 2026-07-28 era each request
 * carries the `_meta` envelope; in the 2025-11-25 era the handshake runs once, lazily.
 *
 * @example
 * await using client = await RawStdioClient.spawn({ command: process.execPath, args: ['server.mjs'], era: '2026-07-28' });
 * const reply = await client.callTool('echo', { a: 'x' });
 */
export class RawStdioClient extends ClientCore<RawReply, RequestOptions> implements RawMcpClient {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #router = new MessageRouter();
  readonly #messages: JsonRpcMessage[] = [];
  readonly #closed: Promise<void>;
  readonly #timeoutMs: number;
  #stdout = '';
  #stderr = '';
  #partialLine = '';
  #exit: ProcessExit | undefined;

  private constructor(options: RawStdioClientOptions, child: ChildProcessWithoutNullStreams) {
    super(options);
    this.#child = child;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
    child.stderr.on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    child.stdin.on('error', () => undefined);
    this.#closed = new Promise<void>((resolve) => {
      child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
        this.#exit = { code, signal };
        const tail = this.#stderr.slice(-2000);
        this.#router.fail(
          new Error(`server process ended (code ${code}, signal ${signal}); stderr: ${tail}`),
        );
        resolve();
      });
    });
  }

  /** Starts the server process; rejects when it cannot be spawned or the options are bad. */
  static async spawn(options: RawStdioClientOptions): Promise<RawStdioClient> {
    checkCoreOptions(options);
    const child = spawn(options.command, [...(options.args ?? [])], {
      cwd: options.cwd,
      env: childEnv(options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    try {
      await once(child, 'spawn');
      return new RawStdioClient(options, child);
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  /** Everything the server wrote to stdout, including any line that is not JSON. */
  get stdout(): string {
    return this.#stdout;
  }

  /** Everything the server wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Every JSON object received on stdout, in order. */
  get messages(): readonly JsonRpcMessage[] {
    return this.#messages;
  }

  /** How the process ended, or `undefined` while it runs. */
  get exit(): ProcessExit | undefined {
    return this.#exit;
  }

  /**
   * Writes `body` (or `rawLine`) as one line, adding nothing, and waits for the response to the
   * id it carries when it is a request. When nothing is awaited the reply has no `response`.
   */
  async send(body: unknown, options: StdioSendOptions = {}): Promise<RawReply> {
    const line = options.rawLine ?? JSON.stringify(body);
    const source = options.rawLine ?? body;
    const id = requestIdOf(source);
    const awaited = id !== undefined && (options.awaitResponse ?? isRequestWithId(source));
    const response = awaited ? this.#router.waitForResponse(id, this.#timeoutMs) : undefined;
    this.#child.stdin.write(`${line}\n`);
    return replyFor(id, await response);
  }

  /** Resolves with the first message received so far or later that `matches` accepts. */
  waitForMessage(
    matches: (message: JsonRpcMessage) => boolean,
    timeoutMs = this.#timeoutMs,
  ): Promise<JsonRpcMessage> {
    const seen = this.#messages.find(matches);
    if (seen !== undefined) return Promise.resolve(seen);
    return this.#router.waitFor(matches, timeoutMs, 'matching message');
  }

  /** Closes stdin, stops the process (SIGTERM, then SIGKILL after 5 s) and waits for it to end. */
  async close(): Promise<void> {
    if (this.#exit !== undefined) return;
    this.#child.stdin.end();
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 5000);
    await this.#closed;
    clearTimeout(timer);
  }

  /** Same as {@link RawStdioClient.close}, for `await using`. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  protected override exchange(body: JsonRpcRequest): Promise<RawReply> {
    return this.send(body);
  }

  protected override async notify(method: string): Promise<void> {
    await this.send({ jsonrpc: '2.0', method });
  }

  protected override onInitialized(): void {}

  #onStdout(chunk: string): void {
    this.#stdout += chunk;
    const lines = (this.#partialLine + chunk).split('\n');
    this.#partialLine = lines.pop() ?? '';
    for (const line of lines) this.#onLine(line.endsWith('\r') ? line.slice(0, -1) : line);
  }

  #onLine(line: string): void {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    for (const message of messagesIn(value)) {
      this.#messages.push(message);
      this.#router.deliver(message);
    }
  }
}
