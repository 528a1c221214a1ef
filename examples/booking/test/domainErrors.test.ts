import { describe, expect, it } from 'vitest';
import { replyForError } from '../src/api/http.js';
import { DomainError, type DomainErrorKind } from '../src/domain/errors.js';
import { toolErrorOf } from '../src/mcp/errors.js';

const KINDS: Record<DomainErrorKind, { tool: string; status: number }> = {
  not_found: { tool: 'not_found', status: 404 },
  rule_broken: { tool: 'invalid_arguments', status: 400 },
  stale: { tool: 'conflict', status: 409 },
  count_mismatch: { tool: 'batch_count_mismatch', status: 409 },
};

describe('a domain error at each adapter', () => {
  it.each(Object.entries(KINDS))('maps %s to its tool error code and its HTTP status', (kind, expected) => {
    const error = new DomainError({
      kind: kind as DomainErrorKind,
      message: 'Booking "bk_1" changed since it was read.',
      fix: 'Read it again with get_booking.',
      next: { operation: 'get_booking', arguments: { id: 'bk_1' } },
      details: { id: 'bk_1' },
    });
    expect(toolErrorOf(error)).toEqual({
      code: expected.tool,
      message: error.message,
      fix: error.fix,
      next: { tool: 'get_booking', arguments: { id: 'bk_1' } },
      details: { id: 'bk_1' },
    });
    const reply = replyForError(error);
    expect(reply.status).toBe(expected.status);
    expect(reply.body).toEqual({
      error: expected.tool,
      message: error.message,
      fix: error.fix,
      details: { id: 'bk_1' },
    });
  });

  it('leaves any other error to the adapters’ own fault path: no tool error, a bare 500', () => {
    const leak = new Error('connect ECONNREFUSED postgres://admin:hunter2@db/prod');
    expect(toolErrorOf(leak)).toBeUndefined();
    expect(toolErrorOf('not_found')).toBeUndefined();
    const reply = replyForError(leak);
    expect(reply.status).toBe(500);
    expect(JSON.stringify(reply.body)).not.toContain('hunter2');
  });

  it('leaves out next when the domain names no next operation', () => {
    const error = new DomainError({
      kind: 'rule_broken',
      message: 'Too short.',
      fix: 'Book 15 minutes or more.',
    });
    expect(toolErrorOf(error)).toEqual({
      code: 'invalid_arguments',
      message: 'Too short.',
      fix: 'Book 15 minutes or more.',
      details: {},
    });
  });
});
