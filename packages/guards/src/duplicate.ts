import {
  ALLOW,
  ConfigurationError,
  type Connection,
  canonicalJson,
  type Decision,
  defineGuard,
  deny,
  type GuardArguments,
  type JsonObject,
  type UnitGuard,
} from '@gatehousejs/core';
import { refuseNotifyLike } from '@gatehousejs/core/internal';

/** Options of {@link duplicateGuard}: what a create tool declares about its business key (I11). */
export interface DuplicateGuardOptions<TInput, TServices> {
  /**
   * The business key of the input, shown in the refusal (e.g. customer and
   * start); `now` is the call's time, for presenting times in full (I20).
   * It also names the lock two creates of one key wait on: for that the
   * guard calls it with a fixed `now` (the epoch), so a key
   * that shows a time's distance from now names the same lock at every moment.
   */
  readonly key: (input: TInput, env: { readonly now: Date }) => JsonObject;
  /** Finds an existing object with that key in the caller's tenant, on the unit of work's services. */
  readonly find: (context: {
    readonly input: TInput;
    readonly services: TServices;
    readonly connection: Connection;
  }) => Promise<{ readonly id: string } | undefined> | { readonly id: string } | undefined;
  /** The sibling update tool; the server refuses to build without it. */
  readonly updateTool: string;
  /** What the object is called in messages, e.g. `booking`; default `object`. */
  readonly noun?: string;
}

/**
 * The `now` the duplicate guard gives `key` when it names the key's lock: a
 * fixed instant, so the name depends on the input only. A key computed at
 * the call's own time (a start shown as "in 2 hours") would name another
 * lock a minute later, and two creates of one key would not wait for each other.
 */
const DUPLICATE_LOCK_NOW: Date = new Date(0);

/** The arguments a create tool gains for its override (I11). */
function separateArguments(noun: string): GuardArguments {
  return {
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
  };
}

/**
 * The duplicate check of a create tool (I11), a check-then-act guard: it
 * runs inside the unit of work on the call's services, so the lookup and
 * the insert commit together, and two units creating one key wait for each
 * other (the unit of work's `serialize`). A create whose business key exists
 * is refused with `duplicate`, naming the existing id and the sibling update
 * tool. Creating anyway needs `separate: true` and a non-empty `reason`,
 * recorded in the audit row; both are part of the replay fingerprint (I10).
 * When the server is built it refuses a sibling that is not a registered
 * silent write tool, or that takes a notify-like parameter.
 *
 * @example
 * guards: (g) => [g.duplicate({ key: (i) => ({ customer_id: i.customer_id }), find: …, updateTool: 'update_booking' })]
 */
export function duplicateGuard<TInput, TServices>(
  options: DuplicateGuardOptions<TInput, TServices>,
): UnitGuard<TInput, TServices> {
  if (
    typeof options?.key !== 'function' ||
    typeof options.find !== 'function' ||
    typeof options.updateTool !== 'string' ||
    options.updateTool === ''
  )
    throw new ConfigurationError('duplicateGuard: key(), find() and updateTool are required (I11).');
  const noun = options.noun ?? 'object';
  const { updateTool } = options;
  return defineGuard<TInput, TServices>({
    kind: 'unit',
    name: 'duplicate',
    creates: { updateTool },
    arguments: separateArguments(noun),
    verify(tool, tools, build) {
      const update = tools.get(updateTool);
      if (!update)
        throw new ConfigurationError(
          `Tool ${tool.name}: its sibling update tool ${updateTool} is not registered (I11).`,
        );
      if (update.effect !== 'write')
        throw new ConfigurationError(
          `Tool ${tool.name}: its sibling update tool ${updateTool} must be a silent write tool (I11).`,
        );
      refuseNotifyLike(update, 'update', build);
    },
    async check({
      tool,
      input,
      services,
      connection,
      guardArguments,
      note,
      now,
      serialize,
    }): Promise<Decision> {
      const separate = guardArguments.separate === true;
      const reason = typeof guardArguments.reason === 'string' ? guardArguments.reason.trim() : '';
      if (separate || reason) {
        if (!separate || !reason) {
          return deny({
            code: 'invalid_arguments',
            message: 'separate and reason go together.',
            fix: `To create a separate ${noun}, send separate: true with a non-empty reason.`,
          });
        }
        note(`separate: ${reason}`);
        return ALLOW;
      }
      // Two units creating the same key wait for each other, so the second one finds the first's row.
      if (serialize) {
        const lockKey = canonicalJson(options.key(input, { now: DUPLICATE_LOCK_NOW }));
        await serialize(`duplicate\u0000${tool.name}\u0000${connection.tenantId}\u0000${lockKey}`);
      }
      const existing = await options.find({ input, services, connection });
      if (!existing) return ALLOW;
      const key = options.key(input, { now }); // shown as of the call's time (I20)
      return deny({
        code: 'duplicate',
        message: `A ${noun} with the same ${Object.keys(key).join(' and ')} exists: ${existing.id}.`,
        fix: `Change ${existing.id} with ${updateTool}, or create a separate ${noun} with separate: true and a reason.`,
        next: { tool: updateTool, arguments: { id: existing.id } },
        details: { existing_id: existing.id, key, update_tool: updateTool },
      });
    },
  });
}
