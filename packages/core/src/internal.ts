/**
 * Building blocks the sibling packages (`@gatehousejs/presenters`, `guards`, `stores`,
 * `testing`, `console`) share with core. Not part of the public API: no semver promise, and a host
 * should not need any of it. Adopters import from the package root.
 */
export {
  ERROR_OUTPUT_SCHEMA,
  errorStructure,
  renderOutcome,
  renderStructured,
  structureOf,
  toolOutputSchema,
} from './contract/envelope.js';
export { portableSha256Hex } from './hashing.js';
export { contentDigest } from './internal/contentDigest.js';
export { newFence, newId } from './internal/ids.js';
export { boundedMemo, FORMATTER_LIMIT } from './internal/memo.js';
export { DEFAULT_LEASE_MS, heartbeat, leaseOf } from './pipeline/lease.js';
export { inputShape, refuseNotifyLike } from './pipeline/shape.js';
export { portAllowed } from './ports.js';
export { refuseTenantLike } from './schema/checks.js';
export { boundedText } from './serve/body.js';
export { httpsOrLocal } from './serve/hostOrigin.js';
export { authorizationListLimit } from './storage/authorizationStore.js';
export { listLimit } from './storage/credentialStore.js';
export { ExpiringMap } from './storage/expiringMap.js';
export { stripHidden, stripHiddenDeep } from './text.js';
export { fromNow, PRESENTED_TIME_SCHEMA, presentUtc } from './time.js';
