import type { BuildContext, GuardArgument, PlannedTool, UnitGuard } from '../contract/guard.js';
import type { Creates } from '../contract/tool.js';
import { ConfigurationError } from '../errors.js';
import { canonicalJson } from '../hashing.js';
import { refuseNotifyLike } from './shape.js';

/** The arguments a create tool gains for its override (I11). */
export function separateArguments(noun: string): { readonly [name: string]: GuardArgument } {
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
 * The duplicate-create check of a tool that declares `creates` (I11), run
 * inside the unit of work on its services, so the lookup and the insert
 * commit together. A create whose business key exists is refused with
 * `duplicate`, naming the existing id and the sibling update tool. Creating
 * anyway needs `separate: true` and a non-empty `reason`, recorded in the
 * audit row; both are part of the replay fingerprint (I10).
 */
export function duplicateCheck(creates: Creates<unknown, unknown>): UnitGuard {
  const noun = creates.noun ?? 'object';
  const guard: UnitGuard = {
    name: 'duplicate',
    stage: 'unit',
    arguments: separateArguments(noun),
    verify(tool: PlannedTool, tools: ReadonlyMap<string, PlannedTool>, build: BuildContext) {
      const update = tools.get(creates.updateTool);
      if (!update) {
        throw new ConfigurationError(
          `Tool ${tool.name}: its sibling update tool ${creates.updateTool} is not registered (I11).`,
        );
      }
      if (update.effect !== 'write') {
        throw new ConfigurationError(
          `Tool ${tool.name}: its sibling update tool ${creates.updateTool} must be a silent write tool (I11).`,
        );
      }
      refuseNotifyLike(update, 'update', build);
    },
    async check({ tool, input, services, connection, guardArguments, note, now, serialize }) {
      const separate = guardArguments.separate === true;
      const reason = typeof guardArguments.reason === 'string' ? guardArguments.reason.trim() : '';
      if (separate || reason) {
        if (!separate || !reason) {
          return {
            code: 'invalid_arguments',
            message: 'separate and reason go together.',
            fix: `To create a separate ${noun}, send separate: true with a non-empty reason.`,
          };
        }
        note(`separate: ${reason}`);
        return undefined;
      }
      const key = creates.key(input, { now });
      // Two units creating the same key wait for each other, so the second one finds the first's row.
      await serialize?.(`duplicate\u0000${tool.name}\u0000${connection.tenantId}\u0000${canonicalJson(key)}`);
      const existing = await creates.find({ input, services, connection });
      if (!existing) return undefined;
      return {
        code: 'duplicate',
        message: `A ${noun} with the same ${Object.keys(key).join(' and ')} exists: ${existing.id}.`,
        fix: `Change ${existing.id} with ${creates.updateTool}, or create a separate ${noun} with separate: true and a reason.`,
        next: { tool: creates.updateTool, arguments: { id: existing.id } },
        details: { existing_id: existing.id, key, update_tool: creates.updateTool },
      };
    },
  };
  return Object.freeze(guard);
}
