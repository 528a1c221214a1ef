import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable, Writable } from 'node:stream';

/** A node:http listener, as Koa's `callback()` returns it. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** The socket facts a node handler reads: whether TLS terminated here, and the peer's address. */
interface SocketFacts {
  readonly encrypted: boolean;
  readonly remoteAddress: string | undefined;
}

/** A response that collects what the handler writes, and settles a web `Response` when it ends. */
class CollectedResponse extends Writable {
  statusCode = 200;
  statusMessage = '';
  readonly #headers = new Map<string, number | string | string[]>();
  readonly #chunks: Buffer[] = [];
  #sent = false;
  readonly done: Promise<Response>;

  constructor() {
    super();
    let settle: (response: Response) => void = () => undefined;
    this.done = new Promise((resolve) => {
      settle = resolve;
    });
    this.on('finish', () => settle(this.#response()));
  }

  get headersSent(): boolean {
    return this.#sent;
  }
  setHeader(name: string, value: number | string | string[]): this {
    this.#headers.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): number | string | string[] | undefined {
    return this.#headers.get(name.toLowerCase());
  }
  getHeaders(): Record<string, number | string | string[]> {
    return Object.fromEntries(this.#headers);
  }
  getHeaderNames(): string[] {
    return [...this.#headers.keys()];
  }
  hasHeader(name: string): boolean {
    return this.#headers.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.#headers.delete(name.toLowerCase());
  }
  writeHead(status: number, headers?: Record<string, number | string | string[]>): this {
    this.statusCode = status;
    for (const [name, value] of Object.entries(headers ?? {})) this.setHeader(name, value);
    this.#sent = true;
    return this;
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.#sent = true;
    this.#chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
    callback();
  }

  #response(): Response {
    const headers = new Headers();
    for (const [name, value] of this.#headers) {
      for (const one of Array.isArray(value) ? value : [String(value)]) headers.append(name, one);
    }
    const empty = this.statusCode === 204 || this.statusCode === 304;
    const body = empty ? null : Buffer.concat(this.#chunks);
    return new Response(body, { status: this.statusCode, headers });
  }
}

/** A node request over a web request's head and (already read) body. */
function incomingOf(request: Request, body: Buffer, socket: SocketFacts): IncomingMessage {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers) headers[name] = value;
  if (!headers.host) headers.host = url.host;
  // the body is read whole (and may have been rewritten): its length is what it is now
  delete headers['transfer-encoding'];
  if (body.length > 0 || headers['content-length'] !== undefined)
    headers['content-length'] = String(body.length);
  const readable = Readable.from(body.length > 0 ? [body] : []);
  return Object.assign(readable, {
    method: request.method,
    url: `${url.pathname}${url.search}`,
    headers,
    httpVersion: '1.1',
    socket,
    connection: socket,
  }) as unknown as IncomingMessage;
}

/** The request body, read until it passes `limit` bytes (then undefined, the rest unread). */
async function boundedBody(request: Request, limit: number): Promise<Buffer | undefined> {
  if (!request.body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return Buffer.concat(chunks);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
}

/**
 * Runs a node:http handler (a Koa app's `callback()`) for one web request and
 * returns its answer as a web `Response`, so a node-only library serves
 * through core's `listen({ fetch })` beside the MCP endpoint. The request
 * body is read up to `maxBodyBytes` (a larger one answers 413 without
 * asking for the handler), then given to `rewrite` when one is passed; the
 * response is collected whole (these answers are small JSON, redirects and
 * forms, never streams).
 */
export async function runNodeHandler(
  handlerOf: () => Promise<NodeHandler>,
  request: Request,
  socket: SocketFacts,
  options: {
    readonly maxBodyBytes?: number;
    readonly rewrite?: (request: Request, body: Buffer) => Buffer;
  } = {},
): Promise<Response> {
  const read = await boundedBody(request, options.maxBodyBytes ?? 64 * 1024);
  if (!read) return new Response('The request body is too large.', { status: 413 });
  const body = options.rewrite ? options.rewrite(request, read) : read;
  const handler = await handlerOf();
  const res = new CollectedResponse();
  await handler(incomingOf(request, body, socket), res as unknown as ServerResponse);
  return res.done;
}
