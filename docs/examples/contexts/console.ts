// What the compiled blocks of docs/console.md use without declaring it
// (scripts/checkDocsCode.mjs imports these names into each block).
import type { ConsoleOptions, ConsoleRequest, OpenedSession, PasswordAccounts } from '@gatehousejs/console';
import type { RateBucketStore } from '@gatehousejs/core';

export { createConsole, passwordSignIn } from '@gatehousejs/console';

export type Right = 'tickets.read' | 'customers.email';

/** The product's session id of this sign-in. */
export declare const sessionId: string;

/** The console's options as the first example on this page builds them. */
export declare const options: ConsoleOptions<Right>;

/** The product's people and sessions. */
export declare function login(email: string, password: string): Promise<OpenedSession | undefined>;
export declare const session: PasswordAccounts<Right>['session'];
export declare const logout: PasswordAccounts<Right>['logout'];
export declare const redeemLink: NonNullable<PasswordAccounts<Right>['redeemLink']>;
export declare const person: PasswordAccounts<Right>['person'];

/** The product's stores (`@gatehousejs/stores`). */
export declare const stores: { readonly rateBuckets: RateBucketStore };
/** The client's address as the product's HTTP layer knows it. */
export declare function addressOf(request: Request): string | undefined;

/** The authorization server and its consent pages (`@gatehousejs/oauth` has them as `consentPages(server)`). */
export declare const server: object;
export declare function showConsent(server: object, request: ConsoleRequest<Right>): Promise<Response>;
export declare function answerConsent(server: object, request: ConsoleRequest<Right>): Promise<Response>;
