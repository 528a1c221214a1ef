import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
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

/** Options of {@link RawStdioClient.connect}. */
export interface RawStdioStreamOptions extends CoreOptions {
  /** How long to wait for a response; default 10 000 ms. */
  readonly timeoutMs?: number;
}

/**
 * A stdio server running in this process, reached over a pair of streams:
 * what the client writes is the server's stdin, what the server writes its
 * stdout. Tests use it where the check needs no process boundary.
 */
export interface StdioConnection {
  /** The server's stdin. */
  readonly input: Writable;
  /** The server's stdout. */
  readonly output: Readable;
  /** Stops the server and releases what it opened. */
  close(): Promise<void>;
}

/** What the client drives: the server's streams, how it ends, and how to stop it. */
interface ServerPipes {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable | undefined;
  /** Resolves once the server has ended. */
  readonly ended: Promise<ProcessExit>;
  /** Asks the server to stop (stdin is already ended). */
  stop(): void;
}

/** A spawned child as {@link ServerPipes}: SIGTERM to stop, SIGKILL after 5 s. */
function processPipes(child: ReturnType<typeof spawn>): ServerPipes {
  const ended = new Promise<ProcessExit>((resolve) => {
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => resolve({ code, signal }));
  });
  return {
    stdin: child.stdin as Writable,
    stdout: child.stdout as Readable,
    stderr: child.stderr ?? undefined,
    ended,
    stop() {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      void ended.then(() => clearTimeout(timer));
    },
  };
}

/** An in-process connection as {@link ServerPipes}: it has ended once `close()` resolved. */
function connectionPipes(connection: StdioConnection): ServerPipes {
  let finish: (exit: ProcessExit) => void = () => undefined;
  const ended = new Promise<ProcessExit>((resolve) => {
    finish = resolve;
  });
  const stop = () => {
    void connection.close().finally(() => finish({ code: 0, signal: null }));
  };
  return { stdin: connection.input, stdout: connection.output, stderr: undefined, ended, stop };
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
 * It spawns the server (or connects to one in this process over a pair of streams), writes newline-delimited JSON-RPC to its stdin and correlates
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
  readonly #pipes: ServerPipes;
  readonly #router = new MessageRouter();
  readonly #messages: JsonRpcMessage[] = [];
  readonly #closed: Promise<void>;
  readonly #timeoutMs: number;
  #stdout = '';
  #stderr = '';
  #partialLine = '';
  #exit: ProcessExit | undefined;
  #stopping = false;

  private constructor(options: RawStdioStreamOptions, pipes: ServerPipes) {
    super(options);
    this.#pipes = pipes;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    pipes.stdout.setEncoding('utf8');
    pipes.stdout.on('data', (chunk: string) => this.#onStdout(chunk));
    pipes.stderr?.setEncoding('utf8');
    pipes.stderr?.on('data', (chunk: string) => {
      this.#stderr += chunk;
    });
    pipes.stdin.on('error', () => undefined);
    this.#closed = pipes.ended.then(({ code, signal }) => {
      this.#exit = { code, signal };
      const tail = this.#stderr.slice(-2000);
      this.#router.fail(new Error(`server process ended (code ${code}, signal ${signal}); stderr: ${tail}`));
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
      return new RawStdioClient(options, processPipes(child));
    } catch (error) {
      child.kill('SIGKILL');
      throw error;
    }
  }

  /**
   * Speaks to a server running in this process over `connection`'s streams;
   * closing the client ends its input and closes the connection.
   */
  static connect(connection: StdioConnection, options: RawStdioStreamOptions): RawStdioClient {
    checkCoreOptions(options);
    return new RawStdioClient(options, connectionPipes(connection));
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

  /** How the process (or connection) ended, or `undefined` while it runs. */
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
    this.#pipes.stdin.write(`${line}\n`);
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

  /**
   * Closes stdin, stops the server (a process: SIGTERM, then SIGKILL after 5 s;
   * a connection: `close()`) and waits for it to end.
   */
  async close(): Promise<void> {
    if (this.#exit !== undefined) return;
    if (!this.#stopping) {
      this.#stopping = true;
      this.#pipes.stdin.end();
      this.#pipes.stop();
    }
    await this.#closed;
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
