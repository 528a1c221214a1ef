import { isOutage, type Json, type JsonObject, ToolError } from '@gatehousejs/core';
import type { z } from 'zod';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';

/** An answer of a route: a status, a JSON body and extra headers. */
export interface Reply {
  readonly status: number;
  readonly body?: Json;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A failure an API route answers with a status and a JSON body; never a stack or a raw message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: JsonObject = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const STATUS_OF: Readonly<Record<string, number>> = {
  not_found: 404,
  conflict: 409,
  duplicate: 409,
  missing_right: 403,
  batch_count_mismatch: 409,
};

/** Seconds a client waits before it sends a request again that met a database outage. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

/** The HTTP status and API error code of each domain error kind. */
const HTTP_OF: Readonly<Record<DomainErrorKind, readonly [status: number, code: string]>> = {
  not_found: [404, 'not_found'],
  rule_broken: [400, 'invalid_arguments'],
  stale: [409, 'conflict'],
  count_mismatch: [409, 'batch_count_mismatch'],
};

/**
 * The reply for a failure: an ApiError keeps its status and code; a
 * DomainError (the services' business errors) answers the status of its
 * kind; a ToolError (a Gatehouse library's refusal, e.g. minting a
 * credential) keeps its code; a database outage (`store_unavailable`, and
 * `outcome_unknown` when the connection was lost during a commit) is 503
 * with `Retry-After`, naming no cause; anything else is 500.
 */
export function replyForError(error: unknown): Reply {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      body: { error: error.code, message: error.message, details: error.details },
    };
  }
  if (isOutage(error)) {
    const retry = String(OUTAGE_RETRY_AFTER_SECONDS);
    const body = { error: error.code, message: error.message, fix: error.fix };
    return { status: 503, body, headers: { 'retry-after': retry } };
  }
  if (error instanceof DomainError) {
    const [status, code] = HTTP_OF[error.kind];
    const body = {
      error: code,
      message: error.message,
      fix: error.fix,
      details: error.details as JsonObject,
    };
    return { status, body };
  }
  if (ToolError.is(error)) {
    const body = { error: error.code, message: error.message, fix: error.fix, details: error.details };
    return { status: STATUS_OF[error.code] ?? 400, body };
  }
  return { status: 500, body: { error: 'internal_error', message: 'The server failed unexpectedly.' } };
}

/** A reply as a web-standard response, its body as JSON; never cached. */
export function toResponse(reply: Reply): Response {
  const headers = { 'cache-control': 'no-store', ...reply.headers };
  if (reply.body === undefined) return new Response(null, { status: reply.status, headers });
  return new Response(JSON.stringify(reply.body), {
    status: reply.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

const MAX_BODY = 64 * 1024;

const tooLarge = () => new ApiError(413, 'body_too_large', 'The request body exceeds 64 KiB.');

/**
 * A request body's bytes, read at most `limit` of them: `undefined` as soon
 * as it passes the limit (declared or streamed), so a large or endless body
 * is never held in memory. Shared by the API and the pages' forms.
 */
export async function boundedBody(request: Request, limit: number): Promise<Buffer | undefined> {
  if (Number(request.headers.get('content-length') ?? 0) > limit) return undefined;
  const chunks: Uint8Array[] = [];
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON object body (at most 64 KiB); a bad body is a 400. */
export async function readJson(request: Request): Promise<unknown> {
  const bytes = await boundedBody(request, MAX_BODY);
  if (!bytes) throw tooLarge();
  if (bytes.length === 0) return {};
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new ApiError(400, 'invalid_json', 'The request body is not valid JSON.');
  }
}

/** Validates `value` with a shared argument schema, refusing unknown fields (I14); 400 with paths and messages. */
export function parseWith<S extends z.ZodObject>(schema: S, value: unknown): z.output<S> {
  const result = schema.strict().safeParse(value);
  if (result.success) return result.data as z.output<S>;
  const issues = result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  throw new ApiError(400, 'invalid_arguments', issues[0]?.message ?? 'The arguments are invalid.', {
    issues,
  });
}

/** The value of one cookie, if the request carries it. */
export function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return decodeURIComponent(part.slice(at + 1).trim());
  }
  return undefined;
}

/** The query string as a plain object; the keys in `integers` become numbers when they look like one. */
export function queryOf(url: URL, integers: readonly string[] = []): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  for (const [key, value] of url.searchParams) {
    out[key] = integers.includes(key) && /^\d{1,9}$/.test(value) ? Number(value) : value;
  }
  return out;
}
