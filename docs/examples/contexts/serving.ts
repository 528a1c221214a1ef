// What the compiled blocks of docs/serving.md use without declaring it
// (scripts/checkDocsCode.mjs imports these names into each block).
import type { CredentialStore, GatehouseServer } from '@gatehousejs/core';
import type { Listening } from '@gatehousejs/core/node';

export { listen } from '@gatehousejs/core/node';

/** The Gatehouse server: `gh.createServer({ … })`. */
export declare const server: GatehouseServer<'bookings.read' | 'bookings.write'>;
/** The product's own HTTP routes as one web-standard handler (Hono's `app`, a Workers export). */
export declare const api: { fetch(request: Request): Response | Promise<Response> };
/** The product's credential store, read by the readiness probe. */
export declare const credentialStore: CredentialStore;
/** What `listen` returned. */
export declare const served: Listening;
/** The product's logger (pino's shape). */
export declare const logger: { info(fields: object, message: string): void };
