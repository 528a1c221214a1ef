import type { Ajv2020 } from 'ajv/dist/2020.js';
import { builtInTool } from './builtins/define.js';
import { ToolError, type ToolErrorInit } from './errors.js';
import { digest, sha256Hex } from './hashing.js';
import { newId } from './internal/ids.js';
import type { JsonObject } from './json.js';
import { compose } from './pipeline/compose.js';
import { audit, objectIdsOf, prepareTool, type Runner, runTool } from './pipeline/execute.js';
import type { Outcome, ToolCall } from './pipeline/guard.js';
import type { ToolPlan } from './pipeline/plan.js';
import type { PendingAction, PendingActionStore, PendingStatus } from './storage/pendingActionStore.js';
import { presentUtc } from './time.js';
import type { ToolDefinition } from './tool.js';

/** Options of the two-step flow (I9). */
export interface ConfirmOptions {
  readonly store: PendingActionStore;
  /** How long a preview can be confirmed; default 10 minutes. */
  readonly ttlMs?: number;
}

interface Deps<TRight extends string, TServices> {
  readonly options: ConfirmOptions;
  readonly runner: Runner<TRight, TServices>;
  readonly plans: ReadonlyMap<string, ToolPlan<TRight, TServices>>;
  readonly hiddenBecause: (
    tool: ToolDefinition<TRight, TServices>,
    call: ToolCall,
  ) => Promise<ToolErrorInit | undefined>;
  readonly ajv: Ajv2020;
}

const TOKEN_PREFIX = 'gc_';
const randomToken = () => {
  let binary = '';
  for (const byte of crypto.getRandomValues(new Uint8Array(32))) binary += String.fromCharCode(byte);
  return TOKEN_PREFIX + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 500);
const fail = (code: ToolErrorInit['code'], message: string, fix: string): never => {
  throw new ToolError({ code, message, fix });
};
const NOT_FOUND = 'No pending action matches this confirm token on this connection.';
const PREVIEW_AGAIN = 'Call the original tool again to get a new preview.';

/** The two-step flow: outward calls prepare a pending action; `confirm_action` executes it. */
export function createConfirmFlow<TRight extends string, TServices>(deps: Deps<TRight, TServices>) {
  const { store } = deps.options;
  const ttlMs = deps.options.ttlMs ?? 10 * 60_000;
  const clock = deps.runner.clock;
  let previews = 0;

  /** Prepares an outward call and stores it as pending; nothing outward happens (I9). */
  async function preview(tool: ToolDefinition<TRight, TServices>, call: ToolCall): Promise<Outcome> {
    const prepared = await prepareTool(deps.runner, tool, call);
    const now = clock().getTime();
    const token = randomToken();
    const summary = oneLine(`${tool.title ?? tool.name}: ${prepared.summary}`);
    const action: PendingAction = {
      id: `pa_${newId(now)}`,
      tokenHash: sha256Hex(token),
      connectionId: call.connection.connectionId,
      tenantId: call.connection.tenantId,
      tool: tool.name,
      arguments: call.arguments,
      argumentsDigest: digest(call.arguments),
      contentHash: digest(prepared.content),
      summary,
      createdAt: now,
      expiresAt: now + ttlMs,
      status: 'pending',
    };
    await store.insert(action);
    if (++previews % 100 === 0) await store.purge(now - ttlMs);
    return {
      kind: 'preview',
      preview: {
        action: tool.name,
        confirm_token: token,
        confirm_summary: summary,
        expires_at: presentUtc(action.expiresAt, clock()),
        content: prepared.content,
        next: { tool: 'confirm_action', arguments: { confirm_token: token, confirm_summary: summary } },
        reject: { tool: 'reject_action', arguments: { confirm_token: token } },
      },
    };
  }

  async function find(token: string, call: ToolCall): Promise<PendingAction> {
    const action = await store.findByTokenHash(sha256Hex(token));
    const ours =
      action &&
      action.connectionId === call.connection.connectionId &&
      action.tenantId === call.connection.tenantId;
    return ours ? action : fail('confirm_not_found', NOT_FOUND, PREVIEW_AGAIN);
  }

  function refuseStatus(action: PendingAction, now: number): void {
    const dead: Partial<Record<PendingStatus, [ToolErrorInit['code'], string]>> = {
      claimed: ['confirm_locked', 'This action is being confirmed by another request.'],
      executed: ['confirm_used', 'This confirm token was already used.'],
      failed: [
        'confirm_used',
        'This confirm token is dead: an earlier confirmation of it failed or was refused.',
      ],
      superseded: ['confirm_used', 'This confirm token was replaced by a newer preview.'],
      rejected: ['confirm_rejected', 'This action was rejected.'],
    };
    const refusal = dead[action.status];
    if (refusal) fail(refusal[0], refusal[1], PREVIEW_AGAIN);
    if (action.expiresAt <= now) fail('confirm_expired', 'This confirm token expired.', PREVIEW_AGAIN);
  }

  /** Runs the claimed action through its tool's guards, checking the content is unchanged. */
  async function execute(action: PendingAction, call: ToolCall): Promise<JsonObject> {
    const plan = deps.plans.get(action.tool);
    if (!plan) return fail('not_found', `The tool ${action.tool} is no longer served.`, PREVIEW_AGAIN);
    const { tool } = plan;
    const hidden = await deps.hiddenBecause(tool, call);
    if (hidden) throw new ToolError(hidden);
    const input = await tool.runtime.input.parse(action.arguments);
    const target: ToolCall = { ...call, tool, input, arguments: action.arguments, guardArguments: {} };
    const outcome = await compose(plan.chain, target, async () => {
      const fresh = await prepareTool(deps.runner, tool, target);
      if (digest(fresh.content) !== action.contentHash) {
        await store.transition(action.id, ['claimed'], 'superseded');
        const renewed = await preview(tool, target);
        return {
          kind: 'refused',
          error: {
            code: 'changed_since_preview',
            message: `What ${tool.name} would send changed since the preview; nothing was sent and the old token is dead.`,
            fix: 'Review the new preview in details.preview and confirm it with its own token.',
            next: {
              tool: 'confirm_action',
              arguments: (renewed as { preview: JsonObject }).preview.next as JsonObject,
            },
            details: { preview: (renewed as { preview: JsonObject }).preview },
          },
        };
      }
      const data = await runTool(deps.runner, tool, target);
      return { kind: 'result', data };
    });
    if (outcome.kind !== 'result')
      throw new ToolError(
        outcome.kind === 'refused'
          ? outcome.error
          : { code: 'internal_error', message: 'Unexpected preview.', fix: PREVIEW_AGAIN },
      );
    return outcome.data;
  }

  const confirmAction = builtInTool<TRight, TServices>(deps.ajv, {
    name: 'confirm_action',
    title: 'Confirm a prepared action',
    description:
      'Executes an action prepared by a notify, wake, alert or delete tool, given its confirm token and the exact summary shown in the preview.',
    effect: 'write',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    auditsItself: true,
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
    handle: (call) => confirm(call),
  });

  /** The body of `confirm_action`: the checks in the order of I9, then the action. */
  async function confirm(call: ToolCall): Promise<JsonObject> {
    const { confirm_token: token, confirm_summary: summary } = call.input as {
      confirm_token: string;
      confirm_summary: string;
    };
    const action = await find(token, call);
    refuseStatus(action, clock().getTime());
    if (summary !== action.summary) {
      // Fail closed: a token confirmed with the wrong summary dies; the action needs a fresh preview.
      await store.transition(action.id, ['pending', 'approved'], 'failed');
      fail(
        'confirm_summary_mismatch',
        'The confirm summary differs from the one in the preview; the token is now dead.',
        PREVIEW_AGAIN,
      );
    }
    if (!(await store.transition(action.id, ['pending', 'approved'], 'claimed'))) {
      const now = await store.findByTokenHash(action.tokenHash);
      refuseStatus(now ?? { ...action, status: 'executed' }, clock().getTime());
      fail('confirm_locked', 'This action is being confirmed by another request.', PREVIEW_AGAIN);
    }
    let result: JsonObject;
    try {
      result = await execute(action, call);
    } catch (error) {
      if (!(ToolError.is(error) && error.code === 'changed_since_preview'))
        await store.transition(action.id, ['claimed'], 'failed');
      throw error;
    }
    await store.transition(action.id, ['claimed'], 'executed');
    await audit(deps.runner, call, {
      action: action.tool,
      outcome: 'ok',
      objectIds: objectIdsOf(result),
      note: `confirmed ${action.id}`,
    });
    return { action: action.tool, pending_action_id: action.id, result };
  }

  const rejectAction = builtInTool<TRight, TServices>(deps.ajv, {
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
    handle: (call) => reject(call),
  });

  async function reject(call: ToolCall): Promise<JsonObject> {
    const { confirm_token: token, reason } = call.input as { confirm_token: string; reason?: string };
    const action = await find(token, call);
    refuseStatus(action, clock().getTime());
    if (!(await store.transition(action.id, ['pending', 'approved'], 'rejected'))) {
      fail('confirm_used', 'This action can no longer be rejected.', PREVIEW_AGAIN);
    }
    if (reason) call.note(`reason: ${oneLine(reason).slice(0, 200)}`);
    return { rejected: action.tool, pending_action_id: action.id, id: action.id };
  }

  return { preview, tools: [confirmAction, rejectAction] as const };
}
