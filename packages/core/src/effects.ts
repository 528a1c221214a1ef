/** The effect classes, in order of reach (I8). */
export const EFFECTS = ['read', 'write', 'notify', 'wake', 'alert', 'delete'] as const;

/**
 * What a tool's code path does, exactly one per tool (I8):
 * `read` changes nothing; `write` changes state silently; `notify` reaches
 * customers or changes what they see; `wake` pages or calls a person; `alert`
 * mutes, pauses or reroutes alerts; `delete` removes data.
 */
export type Effect = (typeof EFFECTS)[number];

/** The classes that act outside the server and so take two steps (I9). */
export type OutwardEffect = Exclude<Effect, 'read' | 'write'>;

/** MCP tool annotations, derived from the effect class and never written by hand. */
export interface EffectAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** Everything that follows from an effect class. */
export interface EffectTraits {
  readonly annotations: EffectAnnotations;
  /** Silent writes are replay-protected (I10). */
  readonly replayProtected: boolean;
  /** Outward classes only prepare; `confirm_action` executes (I9). */
  readonly twoStep: boolean;
}

const hints = (readOnly: boolean, destructive: boolean, idempotent: boolean, openWorld: boolean) =>
  Object.freeze({
    readOnlyHint: readOnly,
    destructiveHint: destructive,
    idempotentHint: idempotent,
    openWorldHint: openWorld,
  });

/**
 * The one table from effect class to annotations and duties. Annotations are
 * hints for clients; every duty here is enforced by the server regardless.
 */
export const EFFECT_TRAITS: { readonly [E in Effect]: EffectTraits } = Object.freeze({
  read: { annotations: hints(true, false, true, false), replayProtected: false, twoStep: false },
  write: { annotations: hints(false, false, false, false), replayProtected: true, twoStep: false },
  notify: { annotations: hints(false, false, false, true), replayProtected: false, twoStep: true },
  wake: { annotations: hints(false, false, false, true), replayProtected: false, twoStep: true },
  alert: { annotations: hints(false, true, false, false), replayProtected: false, twoStep: true },
  delete: { annotations: hints(false, true, false, false), replayProtected: false, twoStep: true },
});

/** True for `notify`, `wake`, `alert` and `delete`. */
export function isOutward(effect: Effect): effect is OutwardEffect {
  return EFFECT_TRAITS[effect].twoStep;
}
