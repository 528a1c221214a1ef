import type { ToolErrorInit } from '../errors.js';
import type { JsonObject } from '../json.js';

/** Where a person approves an action (I9): the page's URL and the pending action's id. */
export interface ApprovalLink {
  readonly url: string;
  readonly pendingActionId: string;
}

/** A successful result: presenter output. */
export interface ResultOutcome {
  readonly kind: 'result';
  readonly data: JsonObject;
  /** Set when the claim stage answered from its record (I10). */
  readonly replayed?: boolean;
  /** Public ids of the objects touched, for logs and audit. */
  readonly objectIds?: readonly string[];
}

/** A prepared outward action awaiting `confirm_action`, or a person's approval (I9). */
export interface PreviewOutcome {
  readonly kind: 'preview';
  readonly preview: JsonObject;
  /** Set when a person must approve: transports offer the page as a URL elicitation. */
  readonly approval?: ApprovalLink | undefined;
}

/** A refusal the model sees as a tool error (I18). */
export interface RefusedOutcome {
  readonly kind: 'refused';
  readonly error: ToolErrorInit;
  /** `approval_pending`: where the person decides, for transports that can elicit it. */
  readonly approval?: ApprovalLink | undefined;
}

/** What the stage runner produces. Core renders it; guards never build MCP results. */
export type Outcome = ResultOutcome | PreviewOutcome | RefusedOutcome;

/** A refusal outcome. */
export function refuse(error: ToolErrorInit, approval?: ApprovalLink): RefusedOutcome {
  return approval ? { kind: 'refused', error, approval } : { kind: 'refused', error };
}
