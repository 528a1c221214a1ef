import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** Header layers merged left to right; names are lower-cased and a value of `undefined` removes the header. */
export type HeaderLayer = Readonly<Record<string, string | undefined>> | undefined;

/** Merges header layers into one lower-cased record. */
export function mergeHeaders(...layers: readonly HeaderLayer[]): Record<string, string> {
  const merged: Record<string, string> = {};
  for (const layer of layers) {
    for (const [name, value] of Object.entries(layer ?? {})) {
      const key = name.toLowerCase();
      if (value === undefined) delete merged[key];
      else merged[key] = value;
    }
  }
  return merged;
}

/** One HTTP exchange as received. */
export interface HttpExchange {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly text: string;
}

/** What to send. */
export interface HttpCall {
  readonly url: URL;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  readonly timeoutMs: number;
}

function flatHeaders(raw: Readonly<Record<string, string | string[] | undefined>>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * Sends one HTTP request with exactly the given headers (node's `Host` and `Content-Length` are
 * added only when absent) on a fresh connection, and reads the whole body. Rejects on a network
 * failure or when no complete response arrives within `timeoutMs`; any status resolves.
 */
export function httpExchange(call: HttpCall): Promise<HttpExchange> {
  const send = call.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpExchange>((resolve, reject) => {
    const req = send(call.url, { method: call.method, headers: call.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        clearTimeout(timer);
        resolve({
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no complete HTTP response from ${call.url.href} within ${call.timeoutMs} ms`));
    }, call.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(call.body);
  });
}
