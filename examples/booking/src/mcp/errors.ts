import type { ErrorCode, JsonObject, ToolErrorInit } from '@gatehousejs/core';
import { DomainError, type DomainErrorKind } from '../domain/errors.js';

/** The tool error code of each domain error kind. */
const CODE_OF: Readonly<Record<DomainErrorKind, ErrorCode>> = {
  not_found: 'not_found',
  rule_broken: 'invalid_arguments',
  stale: 'conflict',
  count_mismatch: 'batch_count_mismatch',
};

/**
 * The MCP adapter's side of the domain's errors (`createGatehouse({ toolError })`):
 * a {@link DomainError} becomes the tool error a model reads, its next
 * operation the next tool (the product's tools carry its operations'
 * names); anything else stays unexpected and ends as `internal_error`.
 */
export function toolErrorOf(error: unknown): ToolErrorInit | undefined {
  if (!(error instanceof DomainError)) return undefined;
  const next = error.next && {
    tool: error.next.operation,
    ...(error.next.arguments ? { arguments: error.next.arguments as JsonObject } : {}),
  };
  return {
    code: CODE_OF[error.kind],
    message: error.message,
    fix: error.fix,
    details: error.details as JsonObject,
    ...(next ? { next } : {}),
  };
}
