export type { BatchGuardOptions, BatchMatches } from './batch.js';
export { batchGuard } from './batch.js';
export type { InputKey, VersionGuardOptions } from './version.js';
export { versionGuard } from './version.js';
