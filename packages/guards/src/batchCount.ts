import {
  ALLOW,
  ConfigurationError,
  type Connection,
  type Decision,
  defineGuard,
  deny,
  type JsonObject,
  type UnitGuard,
} from '@gatehousejs/core';
import { inputShape } from '@gatehousejs/core/internal';

/** Objects a batch filter matches: the total and a bounded sample to show. */
export interface BatchMatches {
  readonly total: number;
  /** At most `maxListed` entries, each with a public `id`. */
  readonly sample: readonly JsonObject[];
}

/** Options of {@link batchCountGuard}. */
export interface BatchCountGuardOptions<TInput, TServices> {
  /** Counts what the filter matches in the caller's tenant, on the call's own services. */
  readonly match: (query: {
    readonly input: TInput;
    readonly services: TServices;
    readonly connection: Connection;
    /** The call's time, for presenting times in full (I20). */
    readonly now: Date;
  }) => Promise<BatchMatches> | BatchMatches;
  /** Largest batch allowed; default 100. */
  readonly maxSize?: number;
  /** How many matches an error lists; default 20. */
  readonly maxListed?: number;
}

/**
 * Bounded batches (I13), a check-then-act guard: it counts inside the unit of
 * work, so the count and the batch write commit together. A batch tool takes explicit `ids`, or a `filter`
 * with a required `expected_count`. When the filter matches a different
 * number, the error lists the matches (bounded, with the total) and nothing
 * runs. Batches over `maxSize` are refused.
 */
export function batchCountGuard<TInput, TServices>(
  options: BatchCountGuardOptions<TInput, TServices>,
): UnitGuard<TInput, TServices> {
  if (typeof options?.match !== 'function')
    throw new ConfigurationError('batchCountGuard: match is required.');
  const maxSize = options.maxSize ?? 100;
  const maxListed = options.maxListed ?? 20;
  if (!Number.isInteger(maxSize) || maxSize < 1 || !Number.isInteger(maxListed) || maxListed < 1) {
    throw new ConfigurationError('batchCountGuard: maxSize and maxListed must be positive integers.');
  }
  const tooLarge = (total: number): Decision =>
    deny({
      code: 'batch_too_large',
      message: `The batch has ${total} objects; at most ${maxSize} are allowed.`,
      fix: 'Split it into smaller batches, or narrow the filter.',
      details: { total, max_size: maxSize },
    });
  return defineGuard<TInput, TServices>({
    kind: 'unit',
    name: 'batchCount',
    effects: ['write'],
    verify(tool) {
      const { properties } = inputShape(tool);
      if (!properties.has('ids') && !(properties.has('filter') && properties.has('expected_count'))) {
        throw new ConfigurationError(
          `Tool ${tool.name}: a batch tool takes ids, or filter with expected_count (I13).`,
        );
      }
    },
    async check({ input: sent, services, connection, now }): Promise<Decision> {
      const input = sent as TInput & {
        ids?: readonly string[];
        filter?: unknown;
        expected_count?: number;
      };
      if (Array.isArray(input.ids)) return input.ids.length > maxSize ? tooLarge(input.ids.length) : ALLOW;
      if (typeof input.expected_count !== 'number') {
        return deny({
          code: 'invalid_arguments',
          message: 'A filter needs expected_count: how many objects you expect it to match.',
          fix: 'Count the matches first (a find tool), then send expected_count, or send explicit ids.',
        });
      }
      const matches = await options.match({ input: sent, services, connection, now });
      if (matches.total > maxSize) return tooLarge(matches.total);
      if (matches.total === input.expected_count) return ALLOW;
      return deny({
        code: 'batch_count_mismatch',
        message: `The filter matches ${matches.total} objects, not ${input.expected_count}; nothing changed.`,
        fix: 'Check the matches in details, then send explicit ids or the right expected_count.',
        details: {
          expected_count: input.expected_count,
          total: matches.total,
          matches: [...matches.sample.slice(0, maxListed)],
        },
      });
    },
  });
}
