/**
 * Who is calling, bound by the MCP entry point from the credential (I2, I3).
 *
 * Tools and services read the actor from here; there is no ambient "current
 * user". `rights` are the effective rights of this request: the token's
 * rights intersected with the creator's current rights (I4).
 */
export interface Connection<TRight extends string = string> {
  /** The credential (grant) this request came with: "one connection" in Gatehouse's sense. */
  readonly connectionId: string;
  /** The one tenant this connection acts in (I3). */
  readonly tenantId: string;
  /** The person who created the credential; services take them as the actor. */
  readonly creatorId: string;
  /** The client label recorded with the credential. */
  readonly clientName: string;
  /** Always `mcp`: audit rows and services can tell agent calls apart (I15). */
  readonly channel: 'mcp';
  /** Effective rights for this request. */
  readonly rights: ReadonlySet<TRight>;
  /**
   * The tenant the transport named for this request (URL path or header),
   * when it named one; set by admission after the authenticator. The tenant
   * guard refuses a connection bound to another tenant (I3).
   */
  readonly transportTenant?: string | undefined;
  /** A named toolset chosen for this connection (e.g. a compact one for small models), if any. */
  readonly toolset?: string | undefined;
  /**
   * OAuth only: what the access token's scopes leave out (I7's step-up
   * exception). Absent for every other credential: then the rights listed
   * and the rights callable are both `rights`.
   */
  readonly scope?: ConnectionScope<TRight> | undefined;
}

/**
 * An OAuth connection's scope facts, set by the authenticator. `rights`
 * stays what the token may do now (its scopes' rights ∩ the person's live
 * rights); `listed` is what the person could do with more scopes. A tool
 * within `listed` but not within `rights` is listed, and calling it over
 * HTTP answers 403 `insufficient_scope` naming `scopesFor(tool.requires)`.
 */
export interface ConnectionScope<TRight extends string = string> {
  /** The rights `tools/list` lists by: the person's live rights that some declared scope grants. */
  readonly listed: ReadonlySet<TRight>;
  /** Names of declared scopes that together grant every right in `rights`; empty when none can. */
  scopesFor(rights: readonly TRight[]): readonly string[];
}

/** A credential as presented on a transport. */
export interface PresentedCredential {
  /** The bearer token, exactly as presented. */
  readonly token: string;
  /** The tenant the transport names (URL path or header), for credentials serving several tenants. */
  readonly transportTenant?: string | undefined;
}

/** The answer of an authenticator: a connection, or the HTTP status to refuse with. */
export type AuthDecision<TRight extends string = string> =
  | { readonly ok: true; readonly connection: Connection<TRight> }
  | { readonly ok: false; readonly status: 401 | 403; readonly reason: string };

/**
 * Resolves a presented credential to a connection, with live rights, on every
 * request (I4, I5). Gatehouse calls it for every `tools/list` and `tools/call`
 * and never caches its answer across requests.
 */
export type Authenticate<TRight extends string = string> = (
  credential: PresentedCredential,
) => Promise<AuthDecision<TRight>>;

/** A refusal decided before any MCP processing (kill switch, Origin, credentials). */
export interface AdmissionRefusal {
  readonly status: 401 | 403 | 503;
  /** Safe to show: never names a secret. */
  readonly reason: string;
  /** For 503: when to try again. */
  readonly retryAfterSeconds?: number;
  /**
   * For 401: the request carried no credentials at all. Its challenge then names no
   * error code (RFC 6750 §3.1); a bad or unknown credential gets `error="invalid_token"`.
   */
  readonly credentialsMissing?: boolean;
  /**
   * For 403 (OAuth step-up, I7): the access token lacks scopes; these are
   * the scopes that would allow the request. The challenge then says
   * `error="insufficient_scope"` and names them in `scope`.
   */
  readonly insufficientScope?: readonly string[];
}

/** What an admission guard sees of a request. */
export interface AdmissionRequest {
  readonly transport: 'http' | 'stdio';
}
