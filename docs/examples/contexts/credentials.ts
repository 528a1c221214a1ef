// What the compiled blocks of docs/access/credentials.md use without declaring it
// (scripts/checkDocsCode.mjs imports these names into each block).
import {
  createCredentials,
  type McpTokenRefusal,
  type PeopleSource,
  type VerifiedAccessToken,
} from '@gatehousejs/access';
import { createGatehouse, MemoryAuditStore, MemoryCredentialStore } from '@gatehousejs/core';

export const RIGHTS = ['bookings.read', 'bookings.write'] as const;
type Right = (typeof RIGHTS)[number];

export const store = new MemoryCredentialStore();
export const audit = new MemoryAuditStore();
/** The host's people data: each person's rights in a tenant as they stand now. */
export declare const people: PeopleSource<Right>;
export const credentials = createCredentials({ store, audit, people, rights: RIGHTS });

export const gh = createGatehouse({ rights: RIGHTS, services: () => ({ bookings: [] }) });
/** The server's other options: name, version, tools, guards. */
export declare const options: Omit<Parameters<typeof gh.createServer>[0], 'authenticate'>;

/** An Express or connect application. */
export declare const app: { use(path: string, handler: McpTokenRefusal['middleware']): void };

/** The identity provider's token check: signature, issuer, expiry. */
export declare function myJwtVerifier(token: string): Promise<VerifiedAccessToken | undefined>;
