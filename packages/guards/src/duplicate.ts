import {
  ConfigurationError,
  type Connection,
  defineGuard,
  type Guard,
  type JsonObject,
  refuse,
} from '@gatehousejs/core';
import { refuseNotifyLike } from './internal/notifyLike.js';

/** What a duplicate lookup receives. */
export interface DuplicateQuery<TInput> {
  readonly input: TInput;
  readonly connection: Connection;
}

/** Options of {@link duplicateGuard}. */
export interface DuplicateGuardOptions<TInput> {
  /** The sibling update tool; the server refuses to build without it. */
  readonly updateTool: string;
  /** The business key of the input, shown in the error (e.g. customer and start). */
  readonly key: (input: TInput) => JsonObject;
  /**
   * Finds an existing object with that key in the caller's tenant. Read
   * synchronous columns (the product's own rows), never a queued log.
   */
  readonly find: (query: DuplicateQuery<TInput>) => Promise<{ readonly id: string } | undefined>;
  /** What the object is called in messages, e.g. `booking`; default `object`. */
  readonly noun?: string;
}

/**
 * The duplicate-create guard (I11). A create whose business key already
 * exists is refused with `duplicate`, naming the existing id and the sibling
 * update tool. Creating anyway needs `separate: true` and a non-empty
 * `reason`, which is recorded in the audit row.
 */
export function duplicateGuard<TInput>(options: DuplicateGuardOptions<TInput>): Guard {
  if (!options.updateTool || typeof options.find !== 'function' || typeof options.key !== 'function') {
    throw new ConfigurationError('duplicateGuard: updateTool, key and find are required.');
  }
  const noun = options.noun ?? 'object';
  return defineGuard({
    name: 'duplicate',
    effects: ['write'],
    arguments: {
      separate: {
        schema: {
          type: 'boolean',
          description: `Create a separate ${noun} although one with the same key exists.`,
        },
      },
      reason: {
        schema: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          description: 'Why a separate one is needed (with separate).',
        },
      },
    },
    verify(tool, tools) {
      const update = tools.get(options.updateTool);
      if (!update) {
        throw new ConfigurationError(
          `Tool ${tool.name}: its sibling update tool ${options.updateTool} is not registered (I11).`,
        );
      }
      refuseNotifyLike(update, 'update');
    },
    handle: async function duplicate(call, next) {
      const separate = call.guardArguments.separate === true;
      const reason = typeof call.guardArguments.reason === 'string' ? call.guardArguments.reason.trim() : '';
      if (separate || reason) {
        if (!separate || !reason) {
          return refuse({
            code: 'invalid_arguments',
            message: 'separate and reason go together.',
            fix: `To create a separate ${noun}, send separate: true with a non-empty reason.`,
          });
        }
        call.note(`separate: ${reason}`);
        return next();
      }
      const input = call.input as TInput;
      const existing = await options.find({ input, connection: call.connection });
      if (!existing) return next();
      return refuse({
        code: 'duplicate',
        message: `A ${noun} with the same ${Object.keys(options.key(input)).join(' and ')} exists: ${existing.id}.`,
        fix: `Change ${existing.id} with ${options.updateTool}, or create a separate ${noun} with separate: true and a reason.`,
        next: { tool: options.updateTool, arguments: { id: existing.id } },
        details: { existing_id: existing.id, key: options.key(input), update_tool: options.updateTool },
      });
    },
  });
}
