// The PostgreSQL entry, `@gatehousejs/stores/postgres`: the stores on `pg` (an optional peer).
export type { PurgeCounts } from './createSqliteStores.js';
export type { MigrationReport } from './migrations.js';
export { PostgresAuditStore } from './postgres/auditStore.js';
export type { PostgresStores, PostgresStoresOptions } from './postgres/createPostgresStores.js';
export { createPostgresStores } from './postgres/createPostgresStores.js';
export { PostgresCredentialStore } from './postgres/credentialStore.js';
export { migrateGatehouseSchemaPostgres, POSTGRES_SCHEMA_VERSION } from './postgres/migrations.js';
export type { PostgresPendingActionStoreOptions } from './postgres/pendingActionStore.js';
export { PostgresPendingActionStore } from './postgres/pendingActionStore.js';
export type { PostgresPoolOptions } from './postgres/pool.js';
export { createPostgresPool } from './postgres/pool.js';
export type { PostgresRateBucketStoreOptions } from './postgres/rateBucketStore.js';
export { PostgresRateBucketStore } from './postgres/rateBucketStore.js';
export type { PostgresReplayStoreOptions } from './postgres/replayStore.js';
export { PostgresReplayStore } from './postgres/replayStore.js';
export { PostgresSwitchStore } from './postgres/switchStore.js';
export { postgresUnitOfWork } from './postgres/unitOfWork.js';
