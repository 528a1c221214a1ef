/**
 * The booking domain's own errors. Services throw these and nothing of any
 * transport: the MCP adapter maps them to tool errors
 * (`createGatehouse({ toolError })`, see `mcp/errors.ts`), the REST API to
 * HTTP statuses (`api/http.ts`), the CLI to usage errors.
 */

/** What went wrong, in the domain's words. */
export type DomainErrorKind =
  /** The object does not exist in the caller's workspace (or is not theirs to see). */
  | 'not_found'
  /** A value breaks a business rule (a duration, a price, a time, a status). */
  | 'rule_broken'
  /** The object changed since the caller read it (optimistic version). */
  | 'stale'
  /** A selection by filter matched another number of objects than the caller expected. */
  | 'count_mismatch';

/** Public, non-secret facts about the error: ids, limits, the current version. */
export type DomainDetails = { readonly [key: string]: DomainDetail };
type DomainDetail = string | number | boolean | null | readonly DomainDetail[] | DomainDetails;

/** The operation to use next, by the name the product gives it (its tools carry the same names). */
export interface NextOperation {
  readonly operation: string;
  readonly arguments?: DomainDetails;
}

/** Fields of a {@link DomainError}. */
export interface DomainErrorInit {
  readonly kind: DomainErrorKind;
  /** The cause, in one sentence a person or a model can act on; never a secret. */
  readonly message: string;
  /** What to do instead. */
  readonly fix: string;
  readonly next?: NextOperation;
  readonly details?: DomainDetails;
}

/** A business failure of the booking domain. */
export class DomainError extends Error {
  readonly kind: DomainErrorKind;
  readonly fix: string;
  readonly next: NextOperation | undefined;
  readonly details: DomainDetails;

  constructor(init: DomainErrorInit) {
    super(init.message);
    this.name = 'DomainError';
    this.kind = init.kind;
    this.fix = init.fix;
    this.next = init.next;
    this.details = init.details ?? {};
  }
}
