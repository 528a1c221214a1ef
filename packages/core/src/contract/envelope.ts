import { ERROR_CODES, type NextCall, type ToolErrorInit } from '../errors.js';
import type { JsonObject, JsonSchema } from '../json.js';
import { stripHiddenDeep } from '../text.js';
import { PRESENTED_TIME_SCHEMA } from '../time.js';
import type { Outcome } from './outcome.js';

/** The sentence every replayed answer carries (I10). */
export const REPLAY_NOTE =
  'This is the result of an identical earlier call; nothing ran again. To run it again on purpose, resend with a new idempotency_key.';

/** A `tools/call` result as Gatehouse renders it (the MCP `CallToolResult` shape). */
export interface CallResult {
  readonly content: readonly [{ readonly type: 'text'; readonly text: string }];
  readonly structuredContent: JsonObject;
  readonly isError?: true;
  readonly [key: string]: unknown;
}

/** The structured form of a tool error: the JSON line that ends the `Error:` text. */
export function errorStructure(error: ToolErrorInit): JsonObject {
  return {
    status: 'error',
    error: {
      code: error.code,
      message: error.message,
      fix: error.fix,
      ...(error.next
        ? {
            next: {
              tool: error.next.tool,
              ...(error.next.arguments ? { arguments: error.next.arguments } : {}),
            },
          }
        : {}),
      details: error.details ?? {},
    },
  };
}

const singleLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

/**
 * The structured content of an outcome (I18, I19): `{ status: 'ok', result }`
 * (with `replayed` and its note on a replay, I10), a preview
 * (`status: 'PREVIEW'`), or `{ status: 'error', error }`. What leaves is
 * this after the output guards have cleaned it.
 */
export function structureOf(outcome: Outcome): JsonObject {
  if (outcome.kind === 'refused') return errorStructure(outcome.error);
  if (outcome.kind === 'preview') return { ...outcome.preview, status: 'PREVIEW' };
  return {
    status: 'ok',
    result: outcome.data,
    ...(outcome.replayed ? { replayed: true, replay_note: REPLAY_NOTE } : {}),
  };
}

/**
 * Renders structured content as a `tools/call` result (I18, I19). A result
 * or preview is one text block holding exactly its JSON. An error has
 * `isError: true` and a text that starts with `Error:`, names cause, fix and
 * next tool, and ends with one JSON line equal to `structuredContent`.
 */
export function renderStructured(structured: JsonObject, isError: boolean): CallResult {
  if (!isError)
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  const { message, fix, next } = structured.error as unknown as {
    message: string;
    fix: string;
    next?: NextCall;
  };
  const lines = [`Error: ${singleLine(message)}`, `Fix: ${singleLine(fix)}`];
  if (next)
    lines.push(`Next: call ${next.tool}${next.arguments ? ` with ${JSON.stringify(next.arguments)}` : ''}`);
  lines.push(JSON.stringify(structured));
  return {
    content: [{ type: 'text', text: lines.join('\n') }],
    structuredContent: structured,
    isError: true,
  };
}

/** An outcome rendered with every string stripped of hidden characters: what a server with the standard output guard sends. */
export function renderOutcome(outcome: Outcome): CallResult {
  return renderStructured(stripHiddenDeep(structureOf(outcome)), outcome.kind === 'refused');
}

/** JSON Schema of the error structure every tool may return. */
export const ERROR_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    status: { const: 'error' },
    error: {
      type: 'object',
      properties: {
        code: { type: 'string', enum: Object.keys(ERROR_CODES) },
        message: { type: 'string' },
        fix: { type: 'string' },
        next: {
          type: 'object',
          properties: { tool: { type: 'string' }, arguments: { type: 'object' } },
          required: ['tool'],
          additionalProperties: false,
        },
        details: { type: 'object' },
      },
      required: ['code', 'message', 'fix', 'details'],
      additionalProperties: false,
    },
  },
  required: ['status', 'error'],
  additionalProperties: false,
});

/**
 * JSON Schema of a preview (I9); the confirm flow defines the fields beyond
 * these. `expires_at` is a presented UTC time, like every time that leaves
 * a server (I20).
 */
export const PREVIEW_OUTPUT_SCHEMA: JsonSchema = Object.freeze({
  type: 'object',
  properties: {
    status: { const: 'PREVIEW' },
    confirm_token: { type: 'string' },
    confirm_summary: { type: 'string' },
    expires_at: PRESENTED_TIME_SCHEMA,
  },
  required: ['status', 'confirm_token', 'confirm_summary', 'expires_at'],
});

/**
 * The `outputSchema` a tool advertises: its presenter's result, the preview
 * shape for outward tools, and the error shape, as one object schema (I19).
 */
export function toolOutputSchema(resultSchema: JsonSchema, outward: boolean): JsonSchema {
  const success = {
    type: 'object',
    properties: {
      status: { const: 'ok' },
      result: resultSchema,
      replayed: { type: 'boolean' },
      replay_note: { type: 'string' },
    },
    required: ['status', 'result'],
    additionalProperties: false,
  };
  const branches = outward
    ? [success, PREVIEW_OUTPUT_SCHEMA, ERROR_OUTPUT_SCHEMA]
    : [success, ERROR_OUTPUT_SCHEMA];
  return Object.freeze({ type: 'object', oneOf: branches });
}
