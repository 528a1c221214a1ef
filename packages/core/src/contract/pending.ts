import type { JsonObject } from '../json.js';

/** Who may decide a pending action: the model with the two-step confirm, or a person out of band. */
export type ApprovalMode = 'model' | 'person';

/** Where a pending action stands (I9). */
export type PendingStatus =
  | 'pending'
  | 'approved'
  | 'claimed'
  | 'executed'
  | 'rejected'
  | 'superseded'
  | 'failed';

/** A prepared outward action awaiting confirmation (I9). */
export interface PendingAction {
  readonly id: string;
  /** SHA-256 of the confirm token; the token itself is never stored. */
  readonly tokenHash: string;
  readonly connectionId: string;
  readonly tenantId: string;
  readonly tool: string;
  readonly arguments: JsonObject;
  readonly argumentsDigest: string;
  /** SHA-256 of what would go out, compared again at confirmation. */
  readonly contentHash: string;
  /** Written by the server, never copied from model input. */
  readonly summary: string;
  readonly createdAt: number;
  readonly expiresAt: number;
  readonly status: PendingStatus;
  /** Who decides: absent or `model` for the two-step confirm; `person` for approval out of band (I9). */
  readonly approval?: ApprovalMode | undefined;
  /** The person who created the requesting credential (the default approver). */
  readonly creatorId?: string | undefined;
  /** Person actions: the presented result once executed, so the model's `confirm_action` can replay it. */
  readonly result?: JsonObject | undefined;
  /** Person actions: the person who approved or rejected it. */
  readonly decidedBy?: string | undefined;
  /** Person actions: when the decision was made (ms since the epoch). */
  readonly decidedAt?: number | undefined;
  /**
   * While `claimed`: when the claim lapses unless its holder renews it (ms
   * since the epoch). A claim that lapsed (its holder died) counts as open:
   * the next confirmation or approval takes it over. Absent on a `claimed`
   * action written without a lease (lapsed at once).
   */
  readonly claimExpiresAt?: number | undefined;
}

/**
 * One confirmation's or approval's hold on a pending action (I9): while it
 * lasts, no other may run the action; a transition out of `claimed` that
 * names its fence moves the action only while this claim still holds it.
 */
export interface PendingClaim {
  /** A token unique to this claim, across processes. */
  readonly fence: string;
  /** When the claim lapses unless renewed (ms since the epoch). */
  readonly expiresAt: number;
}

/** Fields a transition may set with the status (a decision on a person action), and the claim it is fenced to. */
export interface PendingActionUpdate {
  readonly result?: JsonObject;
  readonly decidedBy?: string;
  readonly decidedAt?: number;
  /**
   * Fences the transition: a `claimed` action moves only while the claim
   * holding this fence has it (a holder whose claim was taken over moves
   * nothing). Actions in the other statuses of `from` move as before.
   */
  readonly fence?: string;
}

/** An action one confirmation (or approval) holds, with the fence of its claim. */
export type ClaimedAction = PendingAction & { readonly status: 'claimed'; readonly fence: string };
