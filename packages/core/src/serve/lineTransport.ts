import type { Readable, Writable } from 'node:stream';
import type { Json } from '../json.js';
import { isPlainObject } from '../json.js';
import { byteLimit, type EdgeAnswer, rpcIdOf, screenMessage } from './body.js';

/** Options of {@link StdioLineTransport}. */
export interface StdioLineTransportOptions {
  /** Most bytes of one line (one message); a longer one is refused unread. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Told of each client mistake the transport answers itself (not JSON, oversized, not JSON-RPC, malformed params). */
  readonly onMistake?: ((reason: string, status: 400 | 413) => void) | undefined;
}

const NEWLINE = 0x0a;

/**
 * Newline-delimited JSON-RPC over a pair of streams (stdin/stdout), for SDK v2
 * and SDK v1 servers alike, with the protocol edges answered here:
 *
 * - a line over `maxBodyBytes` is refused as an invalid request (-32600, id
 *   null) as soon as the limit is passed, without being parsed; the rest of
 *   it is discarded up to the next newline and the next line is served. At
 *   most `maxBodyBytes` of a line are ever held;
 * - a line that is not JSON answers a parse error (-32700), one that is not a
 *   JSON-RPC 2.0 object an invalid request (-32600); blank lines are skipped;
 * - a JSON-RPC batch (an array) is refused (-32600, id null) before any of
 *   its requests runs;
 * - a `tools/call` with malformed params answers one short -32602 sentence.
 *
 * The transport closes when the input ends.
 *
 * @example
 * await server.connect(new StdioLineTransport(process.stdin, process.stdout));
 */
export class StdioLineTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: unknown, extra?: unknown) => void) | undefined;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #limit: number;
  readonly #onMistake: StdioLineTransportOptions['onMistake'];
  #held: Buffer[] = [];
  #size = 0;
  #discarding = false;
  #started = false;
  #closed = false;

  constructor(input: Readable, output: Writable, options: StdioLineTransportOptions = {}) {
    this.#input = input;
    this.#output = output;
    this.#limit = byteLimit(options.maxBodyBytes, 'StdioLineTransport');
    this.#onMistake = options.onMistake;
  }

  /** Starts reading the input. */
  async start(): Promise<void> {
    if (this.#started) throw new Error('StdioLineTransport already started.');
    this.#started = true;
    if (this.#input.readableEnded || this.#input.destroyed) setImmediate(this.#onend);
    this.#input.on('data', this.#ondata);
    this.#input.on('error', this.#onerror);
    this.#input.on('end', this.#onend);
    this.#input.on('close', this.#onend);
    this.#output.on('error', this.#onoutputerror);
  }

  /** Writes one message as one line; waits for the output to drain when it is full. */
  send(message: object): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('StdioLineTransport is closed.'));
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => reject(error);
      this.#output.once('error', fail);
      const done = () => {
        this.#output.off('error', fail);
        resolve();
      };
      if (this.#output.write(`${JSON.stringify(message)}\n`)) done();
      else this.#output.once('drain', done);
    });
  }

  /** Stops reading, drops what is held and calls `onclose`; a second call does nothing. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#input.off('data', this.#ondata);
    this.#input.off('error', this.#onerror);
    this.#input.off('end', this.#onend);
    this.#input.off('close', this.#onend);
    this.#output.off('error', this.#onoutputerror);
    this.#output.on('error', () => undefined);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#held = [];
    this.#size = 0;
    this.onclose?.();
  }

  readonly #onerror = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onoutputerror = (error: Error): void => {
    this.onerror?.(error);
    void this.close();
  };

  readonly #onend = (): void => {
    void this.close();
  };

  readonly #ondata = (chunk: Buffer | string): void => {
    let data = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    while (data.length > 0 && !this.#closed) {
      const newline = data.indexOf(NEWLINE);
      if (this.#discarding) {
        if (newline === -1) return;
        this.#discarding = false;
        data = data.subarray(newline + 1);
        continue;
      }
      const end = newline === -1 ? data.length : newline;
      if (this.#size + end > this.#limit) {
        this.#held = [];
        this.#size = 0;
        this.#answer({ id: null, code: -32600, message: `The message is larger than ${this.#limit} bytes.` });
        if (newline === -1) {
          this.#discarding = true;
          return;
        }
      } else if (newline === -1) {
        this.#held.push(data);
        this.#size += data.length;
        return;
      } else {
        const line = Buffer.concat([...this.#held, data.subarray(0, newline)]);
        this.#held = [];
        this.#size = 0;
        this.#onLine(line.toString('utf8'));
      }
      data = data.subarray(newline + 1);
    }
  };

  #onLine(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return;
    let message: Json;
    try {
      message = JSON.parse(line) as Json;
    } catch {
      this.#answer({ id: null, code: -32700, message: 'Parse error: the line is not JSON.' });
      return;
    }
    if (!Array.isArray(message) && (!isPlainObject(message) || message.jsonrpc !== '2.0')) {
      this.#answer({
        id: rpcIdOf(message),
        code: -32600,
        message: 'Invalid request: not a JSON-RPC 2.0 message.',
      });
      return;
    }
    const edge = screenMessage(message, 'line');
    if (edge) {
      this.#answer(edge);
      return;
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #answer({ id, code, message }: EdgeAnswer): void {
    try {
      this.#onMistake?.(message, code === -32600 && message.startsWith('The message is larger') ? 413 : 400);
    } catch {
      // logging only
    }
    this.send({ jsonrpc: '2.0', id, error: { code, message } }).catch((error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error))),
    );
  }
}
