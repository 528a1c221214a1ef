import type { Ajv2020 } from 'ajv/dist/2020.js';
import { builtInTool } from './define.js';

/** `confirm_action` and `reject_action`, the built-in tools of the two-step flow. */
export function confirmTools<TRight extends string, TServices>(ajv: Ajv2020) {
  const confirmAction = builtInTool<TRight, TServices>(ajv, {
    name: 'confirm_action',
    title: 'Confirm a prepared action',
    description:
      'Executes an action prepared by a notify, wake, alert or delete tool, given its confirm token and the exact summary shown in the preview.',
    effect: 'write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    confirms: 'confirm',
    input: {
      type: 'object',
      properties: {
        confirm_token: { type: 'string', minLength: 1, maxLength: 200 },
        confirm_summary: { type: 'string', maxLength: 1000 },
      },
      required: ['confirm_token', 'confirm_summary'],
    },
    resultSchema: {
      type: 'object',
      properties: {
        action: { type: 'string' },
        pending_action_id: { type: 'string' },
        result: { type: 'object' },
      },
      required: ['action', 'pending_action_id', 'result'],
      additionalProperties: false,
    },
  });

  const rejectAction = builtInTool<TRight, TServices>(ajv, {
    name: 'reject_action',
    title: 'Reject a prepared action',
    description:
      'Discards an action prepared by a notify, wake, alert or delete tool; its confirm token stops working.',
    effect: 'write',
    input: {
      type: 'object',
      properties: {
        confirm_token: { type: 'string', minLength: 1, maxLength: 200 },
        reason: { type: 'string', maxLength: 200 },
      },
      required: ['confirm_token'],
    },
    resultSchema: {
      type: 'object',
      properties: {
        rejected: { type: 'string' },
        pending_action_id: { type: 'string' },
        id: { type: 'string' },
      },
      required: ['rejected', 'pending_action_id'],
      additionalProperties: false,
    },
    confirms: 'reject',
  });
  return [confirmAction, rejectAction] as const;
}
