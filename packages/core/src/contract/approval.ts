import type { Connection } from '../context.js';
import type { OutwardEffect } from '../effects.js';
import type { Json, JsonObject } from '../json.js';
import type { ApprovalMode } from './pending.js';

export type { ApprovalMode } from './pending.js';

/**
 * Approval by a person (I9): which outward actions need one, where the
 * person decides, and how core finds the requesting credential's live
 * standing when they do.
 */
export interface ApprovalOptions<TRight extends string = string> {
  /**
   * Server-wide policy per outward effect class; a tool's own `approval`
   * wins. Unnamed classes are `model` (the two-step confirm).
   */
  readonly byEffect?: Partial<Record<OutwardEffect, ApprovalMode>>;
  /**
   * The absolute URL of the host product's page where a person decides the
   * action with this id. It carries the id only: no personal data and
   * nothing that signs anyone in.
   */
  readonly url: (pendingActionId: string) => string;
  /**
   * The requesting credential's connection as it stands now (live rights,
   * the tenant), or `undefined` when it was revoked, expired or its creator
   * is gone. Approving runs the action with this connection.
   */
  readonly connectionOf: (credentialId: string, tenantId: string) => Promise<Connection<TRight> | undefined>;
  /**
   * Who may decide: the credential's creator only (default), or any person
   * of the same tenant who holds the tool's rights now.
   */
  readonly approvers?: 'creator' | 'workspace';
}

/** A signed-in person deciding on the host's page; the host resolves their live rights. */
export interface Approver<TRight extends string = string> {
  readonly personId: string;
  readonly tenantId: string;
  readonly rights: ReadonlySet<TRight>;
}

/** Where a person action stands, as the approval page shows it. */
export type ApprovalStatus = 'pending' | 'executed' | 'rejected' | 'expired' | 'closed';

/** A person action as its approver sees it. */
export interface ApprovalView {
  readonly id: string;
  readonly tool: string;
  readonly title: string;
  readonly effect: OutwardEffect;
  /** The server-written one-line summary. */
  readonly summary: string;
  readonly tenantId: string;
  /** The requesting credential. */
  readonly connectionId: string;
  /** The person who created the requesting credential. */
  readonly creatorId: string;
  readonly status: ApprovalStatus;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly expiresAt: number;
  /**
   * `view` of a pending action: what would go out if approved now, prepared
   * afresh with the requesting credential's live standing.
   */
  readonly content?: Json;
  /** The hash of `content`: the page posts it back with the approval, so only what was shown is sent. */
  readonly contentHash?: string;
  /** Pending but not approvable now (credential revoked, right lost, switch off, a guard's refusal): why. */
  readonly problem?: string;
  /** Executed: the presented result. */
  readonly result?: JsonObject;
  readonly decidedBy?: string;
  readonly decidedAt?: number;
}

/** What a decision did. Nothing is sent unless `outcome` is `executed`. */
export type ApprovalDecision =
  | { readonly outcome: 'executed'; readonly view: ApprovalView; readonly result: JsonObject }
  | { readonly outcome: 'rejected'; readonly view: ApprovalView }
  /** What would go out changed since it was shown: nothing was sent, `view` holds the new content. */
  | { readonly outcome: 'changed'; readonly view: ApprovalView }
  | {
      readonly outcome: 'refused';
      /** `not_found`, `not_allowed`, `closed`, or the pipeline's code (`missing_right`, `tenant_disabled`, …). */
      readonly code: string;
      readonly message: string;
    };

/**
 * The host page's side of approval by a person. Every method takes the
 * signed-in approver; an action they may not decide is `not_found` (its
 * existence is not disclosed) or `not_allowed`.
 */
export interface Approvals<TRight extends string = string> {
  /** The approver's tenant's person actions awaiting a decision that they may decide, oldest first (no content). */
  listPending(approver: Approver<TRight>, limit?: number): Promise<readonly ApprovalView[]>;
  /** One action; a pending one with fresh content and its hash. */
  view(id: string, approver: Approver<TRight>): Promise<ApprovalView | undefined>;
  /**
   * Approving executes: the confirm pipeline runs now with the requesting
   * credential's live rights and switches, a fresh preparation compared with
   * `shown.contentHash`, single use, and an audit row naming the credential
   * and the approver.
   */
  approve(
    id: string,
    approver: Approver<TRight>,
    shown: { readonly contentHash: string },
  ): Promise<ApprovalDecision>;
  /** Closes the action for good; nothing is ever sent for it. */
  reject(id: string, approver: Approver<TRight>, reason?: string): Promise<ApprovalDecision>;
}
