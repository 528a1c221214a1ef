import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { ToolDefinition } from '../contract/tool.js';
import type { AuditStore } from '../storage/auditStore.js';
import { PRESENTED_TIME_SCHEMA, presentUtc } from '../time.js';
import { builtInTool } from './define.js';

/** A string or null, spelled as `anyOf` (portable), not as a `type` array. */
const NULLABLE_STRING = Object.freeze({ anyOf: [{ type: 'string' }, { type: 'null' }] });

/**
 * `list_recent_changes` (I15): what this connection changed, newest first,
 * paginated with the `before` cursor. Read-only; scoped to the connection
 * and its tenant.
 */
export function recentChangesTool<TRight extends string, TServices>(
  ajv: Ajv2020,
  audit: AuditStore,
  clock: () => Date,
): ToolDefinition<TRight, TServices> {
  return builtInTool<TRight, TServices>(ajv, {
    name: 'list_recent_changes',
    title: 'List recent changes',
    description:
      'Lists the changes this connection made, newest first: tool, outcome, time and the ids touched.',
    effect: 'read',
    input: {
      type: 'object',
      properties: {
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 50,
          default: 20,
          description: 'How many changes to return.',
        },
        before: { type: 'string', maxLength: 64, description: 'The next_before cursor of a previous page.' },
      },
    },
    resultSchema: {
      type: 'object',
      properties: {
        changes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              at: PRESENTED_TIME_SCHEMA,
              tool: { type: 'string' },
              outcome: { type: 'string' },
              object_ids: { type: 'array', items: { type: 'string' } },
              note: NULLABLE_STRING,
            },
            required: ['id', 'at', 'tool', 'outcome', 'object_ids', 'note'],
            additionalProperties: false,
          },
        },
        next_before: NULLABLE_STRING,
      },
      required: ['changes', 'next_before'],
      additionalProperties: false,
    },
    handle: async ({ input: raw, connection }) => {
      const input = raw as { limit: number; before?: string };
      const limit = input.limit;
      const rows = await audit.list({
        tenantId: connection.tenantId,
        connectionId: connection.connectionId,
        limit,
        ...(typeof input.before === 'string' ? { before: input.before } : {}),
      });
      const now = clock();
      return {
        changes: rows.map((row) => ({
          id: row.id,
          at: presentUtc(row.at, now),
          tool: row.action,
          outcome: row.outcome,
          object_ids: [...row.objectIds],
          note: row.note,
        })),
        next_before: rows.length === limit ? (rows.at(-1)?.id ?? null) : null,
      };
    },
  });
}
