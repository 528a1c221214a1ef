export type { EffectAnnotations, EffectTraits, OutwardEffect, Effect } from './effects.js';
export { EFFECTS, EFFECT_TRAITS, isOutward } from './effects.js';
export type { ErrorCode, NextCall, ToolErrorInit } from './errors.js';
export { ConfigurationError, ERROR_CODES, ToolError } from './errors.js';
export { canonicalJson, digest, sha256Hex } from './hashing.js';
export type { Json, JsonObject, JsonSchema } from './json.js';
export type { PresentEnv, Presenter } from './presenter.js';
