/**
 * Deliberate breaks of the minimal host, one per guard or duty, so each
 * contract check is shown to fail when its invariant is broken.
 */
export interface Flaws {
  /** I3: the service looks ids up across tenants. */
  readonly noTenantScoping?: boolean;
  /** I3: find_notes searches every tenant's notes (ids are still looked up in the caller's). */
  readonly unscopedFind?: boolean;
  /** I4: people are cached for a minute, so removed roles and deactivations lag. */
  readonly cachedRights?: boolean;
  /** I5: the authenticator also accepts the product's API tokens. */
  readonly acceptsApiTokens?: boolean;
  /** I5: the Origin allow-list includes a foreign site. */
  readonly trustsForeignOrigin?: boolean;
  /** I6: the kill switch guards read switches nobody sets, so the operator's switches change nothing. */
  readonly ignoresKillSwitch?: boolean;
  /** I7: hidden tools are only filtered out of tools/list; calls run. */
  readonly listOnlyVisibility?: boolean;
  /** I8: update_note mails the note's watchers although it is a silent write. */
  readonly mailsOnUpdate?: boolean;
  /** I9: notify_watchers is declared a silent write, and the mailer a write port: no preview, sends at once. */
  readonly outwardAsWrite?: boolean;
  /** I9: a refused confirmation puts its action back to pending instead of killing the token. */
  readonly keepsRefusedTokens?: boolean;
  /** I10: the replay store keeps nothing, so a re-sent write runs again. */
  readonly noReplay?: boolean;
  /** I11: the create declaration looks keys up in a lagging index that never has the new row. */
  readonly staleDuplicateLookup?: boolean;
  /** I12: update_note has no version guard. */
  readonly noVersionGuard?: boolean;
  /** I13: archive_notes has no batch guard. */
  readonly noBatchGuard?: boolean;
  /** I15: the audit store handed to the server drops rows. */
  readonly droppedAudit?: boolean;
  /** I14: an adapter strips unknown arguments before validation, like plain `z.object`. */
  readonly stripsUnknownArguments?: boolean;
  /** I16: the customer-written body is presented as a plain string. */
  readonly rawThirdPartyText?: boolean;
  /** I16: a tool description tells the model how to behave. */
  readonly instructiveDescription?: boolean;
  /** I17: the note presenter returns the whole record, secret column included. */
  readonly leaksSecretColumn?: boolean;
  /** I17: the host logs every call's arguments. */
  readonly logsArguments?: boolean;
  /** I18: a layer rewrites error texts into a friendly sentence without the JSON line. */
  readonly rewritesErrors?: boolean;
  /**
   * I19: a layer rewrites the advertised output schemas so `title` is an integer. (A
   * presenter that breaks its own schema is caught by core, which answers `internal_error`.)
   */
  readonly wrongOutputSchema?: boolean;
  /** I19: a layer advertises get_note's output schema with a type no JSON Schema knows. */
  readonly invalidOutputSchema?: boolean;
  /** I7: a layer remembers each connection's last non-empty listing and serves it when the fresh one is empty. */
  readonly stickyListing?: boolean;
  /** I20: times are read with the "compatible" disambiguation: gaps and overlaps pass. */
  readonly lenientTime?: boolean;
  /** Fuzz: create_note writes the row before it checks the title. */
  readonly writesBeforeValidating?: boolean;
  /** Fuzz: find_notes builds a RegExp from the query and crashes on bad patterns. */
  readonly regexSearch?: boolean;
}
