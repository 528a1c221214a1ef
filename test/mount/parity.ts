/**
 * What the mounting tests compare: the same requests sent to `listen` and to
 * a framework that mounts the same server, answered with the same status,
 * headers and body. Every request goes over a real port on a fresh
 * connection, its headers exactly as written.
 */
import { request as httpRequest } from 'node:http';
import { RawHttpClient } from '@gatehousejs/testing';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/** One answer as the client received it. */
export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** What to send: a body as text, or `chunked` bytes without a Content-Length. */
export interface Sent {
  readonly method?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly chunked?: number;
}

/**
 * Sends one request on a fresh connection and reads the whole answer. A body
 * is written until the answer arrives (a server that refuses early stops
 * reading it); an error after the answer is ignored.
 */
export function exchange(url: URL, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    // kept alive unless the server closes it, so a refusal's own `Connection: close` shows
    const headers = {
      connection: 'keep-alive',
      ...sent.headers,
      ...(sent.chunked ? { 'transfer-encoding': 'chunked' } : {}),
    };
    const request = httpRequest(url, { method: sent.method ?? 'POST', headers, agent: false });
    request.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers))
          if (value !== undefined) flat[name] = Array.isArray(value) ? value.join('\n') : value;
        resolve({ status: response.statusCode ?? 0, headers: flat, text: Buffer.concat(chunks).toString() });
        request.destroy();
      });
    });
    request.on('error', (error) => (answered ? undefined : reject(error)));
    if (sent.chunked === undefined) {
      request.end(sent.body);
      return;
    }
    let written = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (!answered && written < (sent.chunked ?? 0)) {
        written += chunk.length;
        if (!request.write(chunk)) return void request.once('drain', pump);
      }
      if (!answered) request.end();
    };
    pump();
  });
}

/**
 * Headers that belong to the connection, not to the answer: `Date` changes
 * every second, and a framework may frame the same body with a
 * `Content-Length` or in chunks.
 */
const FRAMING = new Set(['date', 'content-length', 'transfer-encoding', 'keep-alive']);

/** An answer with its framing headers left out, to compare two servers' answers. */
export function comparable(answer: Answer): Answer {
  const headers = Object.fromEntries(
    Object.entries(answer.headers)
      .filter(([name]) => !FRAMING.has(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return { status: answer.status, headers, text: answer.text };
}

const ORIGIN_OK = 'http://localhost:5173';
const MiB = 1024 * 1024;

/** A 2026-07-28 request as the raw client prepares it, with header changes. */
function prepared(
  url: URL,
  token: string | undefined,
  method: string,
  params: Record<string, unknown>,
  headers: Record<string, string | undefined> = {},
): Sent {
  const client = new RawHttpClient({ url, era: '2026-07-28' });
  const request = client.prepare(method, params, { id: 7 });
  const all: Record<string, string | undefined> = {
    ...request.headers,
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...headers,
  };
  const defined = Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return { headers: Object.fromEntries(defined), body: JSON.stringify(request.body) };
}

const findNotes = (query: string, extra: Record<string, unknown> = {}) => ({
  name: 'find_notes',
  arguments: { query, ...extra },
});

/**
 * The requests every framework must answer as `listen` does: a good call,
 * the body limit (declared and chunked, and a body over the frameworks' own
 * default limits but within Gatehouse's), admission's order (Host and
 * Origin before the bearer, the bearer before the body), the 401 challenge,
 * header mismatches and the protocol edges.
 */
export function parityCases(url: URL, token: string): Readonly<Record<string, Sent>> {
  const good = prepared(url, token, 'tools/call', findNotes('boiler'));
  const json = { ...good.headers };
  return {
    'a good call': good,
    'a good call with an allowed Origin': prepared(url, token, 'tools/call', findNotes('boiler'), {
      origin: ORIGIN_OK,
    }),
    'tools/list': prepared(url, token, 'tools/list', {}),
    'server/discover': prepared(url, token, 'server/discover', {}),
    'a 1.2 MiB call: over the frameworks’ default limits, within Gatehouse’s': prepared(
      url,
      token,
      'tools/call',
      findNotes('boiler', { padding: 'x'.repeat(1.2 * MiB) }),
    ),
    'an oversized body, declared': { headers: json, body: ' '.repeat(2 * MiB) },
    'an oversized body, chunked': {
      headers: Object.fromEntries(Object.entries(json).filter(([n]) => n !== 'content-length')),
      chunked: 2 * MiB,
    },
    'no token': prepared(url, undefined, 'tools/call', findNotes('boiler')),
    'no token and an oversized body': {
      headers: Object.fromEntries(Object.entries(json).filter(([n]) => n !== 'authorization')),
      body: ' '.repeat(2 * MiB),
    },
    'a malformed Authorization header': prepared(url, undefined, 'tools/call', findNotes('boiler'), {
      authorization: 'Basic abc',
    }),
    'an unknown token': prepared(url, 'mcp_unknown_token', 'tools/call', findNotes('boiler')),
    'a foreign Origin': prepared(url, token, 'tools/call', findNotes('boiler'), {
      origin: 'https://evil.example',
    }),
    'a foreign Origin and no token': prepared(url, undefined, 'tools/call', findNotes('boiler'), {
      origin: 'https://evil.example',
    }),
    'a foreign Host': prepared(url, token, 'tools/call', findNotes('boiler'), {
      host: `rebound.example:${url.port}`,
    }),
    'a wrong Mcp-Method header': prepared(url, token, 'tools/call', findNotes('boiler'), {
      'mcp-method': 'tools/list',
    }),
    'malformed JSON': { headers: json, body: '{"jsonrpc": "2.0", ' },
    'a batch': { headers: json, body: JSON.stringify([JSON.parse(good.body ?? '{}')]) },
    'no Content-Type': {
      headers: Object.fromEntries(Object.entries(json).filter(([n]) => n !== 'content-type')),
      body: good.body ?? '',
    },
    'a text/plain Content-Type': {
      headers: { ...json, 'content-type': 'text/plain' },
      body: good.body ?? '',
    },
    GET: { method: 'GET', headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
    DELETE: { method: 'DELETE', headers: { authorization: `Bearer ${token}` } },
  };
}

/** The answers of one server to every case, by name. */
export async function answersOf(url: URL, token: string): Promise<Record<string, Answer>> {
  const answers: Record<string, Answer> = {};
  for (const [name, sent] of Object.entries(parityCases(url, token)))
    answers[name] = comparable(await exchange(url, sent));
  return answers;
}

/** A 2025-11-25 tool call (initialize, then the call), answered as the SDK streams it. */
export async function legacyCall(url: URL, token: string): Promise<Answer> {
  const client = new RawHttpClient({
    url,
    era: '2025-11-25',
    headers: { authorization: `Bearer ${token}` },
  });
  const reply = await client.callTool('find_notes', { query: 'boiler' }, { id: 3 });
  return comparable({ status: reply.status, headers: reply.headers, text: reply.text });
}

/**
 * Calls `find_notes` through the official SDK v2 client, as an agent would;
 * the notes found. `fetch` replaces the network (a route handler called in process).
 */
export async function sdkCall(
  url: URL,
  token: string,
  fetch?: (url: string | URL, init?: RequestInit) => Promise<Response>,
): Promise<unknown> {
  const client = new Client({ name: 'mount-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    ...(fetch ? { fetch } : {}),
  });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'find_notes', arguments: { query: 'boiler' } });
    return result.structuredContent;
  } finally {
    await client.close();
  }
}
