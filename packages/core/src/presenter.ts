import type { JsonObject, JsonSchema } from './json.js';

/** What a presenter knows besides the value: the moment of presentation. */
export interface PresentEnv {
  /** The server's clock at presentation time (times show distance from it, I20). */
  readonly now: Date;
}

/**
 * Turns what `run` returned into the JSON that leaves the server (I17).
 *
 * A presenter chooses fields explicitly; nothing it does not list may leave.
 * Its `outputSchema` describes exactly what `present` returns and becomes
 * part of the tool's advertised `outputSchema` (I19).
 */
export interface Presenter<TValue> {
  /** JSON Schema (an object schema) of what `present` returns. */
  readonly outputSchema: JsonSchema;
  /** The JSON object that leaves the server for `value`. */
  present(value: TValue, env: PresentEnv): JsonObject;
  /**
   * The copy of a presented result the replay cache may keep: one-time fields
   * (a freshly issued secret) removed and marked as withheld (I10). Absent
   * means the whole result may be cached.
   */
  forReplay?(presented: JsonObject): JsonObject;
}
