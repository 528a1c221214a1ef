import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { BODY_READ_BEFORE, jsonBodyOf, readJsonBody } from './body.js';
import type { EndpointExchange, NativeJson } from './endpoint.js';
import { internalErrorBody } from './refusal.js';
import type { Report } from './report.js';

/** A node:http request listener. */
export type NodeListener = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The path and query the client sent. Express strips the mount path of
 * `app.use('/console', …)` from `req.url` and keeps the whole in `originalUrl`;
 * a handler with a base path (the console's) needs the whole.
 */
function pathOf(req: IncomingMessage): string {
  const original = (req as { originalUrl?: unknown }).originalUrl;
  return typeof original === 'string' && original.startsWith('/') ? original : (req.url ?? '/');
}

function urlOf(req: IncomingMessage): string {
  const path = pathOf(req);
  try {
    return new URL(path, `http://${first(req.headers.host) ?? 'localhost'}`).href;
  } catch {
    // A malformed Host header: admission still sees the header itself and refuses it.
    return new URL(path, 'http://localhost').href;
  }
}

/** The request body as a web stream that reads from the socket only when pulled. */
function bodyOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  let chunks: AsyncIterator<Buffer | string> | undefined;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      chunks ??= req[Symbol.asyncIterator]();
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else
        controller.enqueue(
          typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value),
        );
    },
    // Stop reading; the response (with `connection: close` where it refuses) ends the exchange.
    cancel() {
      req.pause();
    },
  });
}

/**
 * A node request as a web `Request` whose body is not read until the handler
 * pulls it: admission decides on the headers alone, so a refused request costs
 * no body buffering (unlike converters that read the whole body first).
 */
export function toStreamingRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue;
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else headers.set(name, value);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(urlOf(req), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: bodyOf(req), duplex: 'half' } : {}),
  } as RequestInit);
}

/** A header of a node request as `Headers#get` gives it: repeated fields joined with ", ", null when absent. */
function headerOf(req: IncomingMessage, name: string): string | null {
  const value = req.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Reads a node request's body as UTF-8 within `limit` bytes, as
 * `boundedText` reads a web body: `undefined` when the declared
 * `Content-Length` or the bytes read pass the limit (reading stops there and
 * the socket stays, for the 413); rejects when the client goes mid-body.
 */
function boundedNodeText(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > limit) {
        settle();
        req.pause();
        resolve(undefined);
        return;
      }
      chunks.push(bytes);
    };
    const onEnd = () => {
      settle();
      resolve(new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onClose = () => {
      settle();
      reject(new Error('The client closed the request before its body ended.'));
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/**
 * A node request as an exchange with the MCP endpoint, read straight from
 * node:http: headers from `req.headers`, the body from the socket only when
 * admission asks for it, and a web `Request` built only if something needs
 * one (the SDK's path, the host's `tenantFrom` or `clientAddress`).
 */
export function nodeExchange(req: IncomingMessage, signal: AbortSignal): EndpointExchange {
  let request: Request | undefined;
  return {
    method: (req.method ?? 'GET').toUpperCase(),
    header: (name) => headerOf(req, name),
    // once a Request exists its body stream has started pulling from the socket: read through it
    readBody: async (limit) =>
      request ? readJsonBody(request, limit) : jsonBodyOf(await boundedNodeText(req, limit), limit),
    signal,
    socketAddress: req.socket?.remoteAddress,
    request: () => (request ??= toStreamingRequest(req, signal)),
  };
}

/** Writes a JSON document whole, HTTP 200, with its `Content-Length`: the native path's answer. */
function writeJson(res: ServerResponse, json: string): void {
  const body = Buffer.from(json);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
  res.end(body);
}

/**
 * Whether something read the request's body before the bridge: a parser
 * mounted ahead of the route. The handler would see an empty body, or none.
 */
function bodyTaken(req: IncomingMessage): boolean {
  const method = (req.method ?? 'GET').toUpperCase();
  if (method === 'GET' || method === 'HEAD') return false;
  return req.readableDidRead || req.readableEnded;
}

/** Whether a response is one JSON document (never a stream): written whole, in one piece. */
const isJsonDocument = (response: Response) =>
  response.body !== null && response.headers.get('content-type') === 'application/json';

/**
 * Writes a web `Response` to node:http: a JSON document whole, with its
 * `Content-Length`; any other body streamed with backpressure until the client goes.
 */
async function writeResponse(res: ServerResponse, response: Response, gone: AbortSignal): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  // Headers joins repeated fields with ", ", which would merge cookies; each Set-Cookie stays a line of its own.
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers['set-cookie'] = cookies;
  if (isJsonDocument(response)) {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
    res.end(body);
    return;
  }
  res.writeHead(response.status, headers);
  if (response.body === null) {
    res.end();
    return;
  }
  const closed = new Promise<void>((resolve) =>
    gone.addEventListener('abort', () => resolve(), { once: true }),
  );
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      if (gone.aborted) break;
      if (!res.write(chunk))
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
    }
  } catch {
    // the stream failed or the client went away: end what was sent
  }
  res.end();
}

/** The answer to one node request: a web `Response`, or a JSON document sent with HTTP 200. */
type NodeAnswer = Response | NativeJson;

/** A bare JSON-RPC internal error (500), naming no cause. */
const internalError = () =>
  new Response(internalErrorBody(), { status: 500, headers: { 'content-type': 'application/json' } });

/**
 * One node:http request answered by `answer`, the frame every listener
 * shares: a client that disconnects aborts the signal `answer` gets; a body
 * a parser already read is a failure before `answer` runs (the handler would
 * see no body, and the parser's limit instead of its own: a
 * `ConfigurationError` naming the fix goes to `report`), as is an `answer`
 * that throws; a failure answers `failure()`, naming no cause.
 */
export function serveNode(
  answer: (req: IncomingMessage, signal: AbortSignal) => Promise<NodeAnswer>,
  report: Report,
  failure: () => Response = internalError,
): NodeListener {
  return async function served(req, res) {
    let finished = false;
    const abort = new AbortController();
    res.on('close', () => {
      if (!finished) abort.abort();
    });
    let answered: NodeAnswer;
    try {
      if (bodyTaken(req)) throw new ConfigurationError(BODY_READ_BEFORE);
      answered = await answer(req, abort.signal);
    } catch (error) {
      report(error);
      answered = failure();
    }
    if (answered instanceof Response) await writeResponse(res, answered, abort.signal);
    else writeJson(res, answered.json);
    finished = true;
  };
}

/**
 * Serves a web-standard `fetch` handler through node:http (see
 * {@link serveNode}): a handler that throws answers a bare JSON-RPC internal
 * error (500) naming no cause, or `failure()`; the error goes to `report`.
 * `fetch` also receives the node request (its socket's address, for logs).
 */
export function nodeListener(
  fetch: (request: Request, incoming: IncomingMessage) => Response | Promise<Response>,
  report: Report,
  failure?: () => Response,
): NodeListener {
  return serveNode(async (req, signal) => fetch(toStreamingRequest(req, signal), req), report, failure);
}
