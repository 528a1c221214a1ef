// What the compiled block of docs/testing.md uses without declaring it
// (scripts/checkDocsCode.mjs imports these names into the block).
import type { JsonObject } from '@gatehousejs/core';

export { expect } from 'vitest';

/** The server under test: `listen(server, { port: 0 })`'s `url`. */
export declare const url: URL;
/** An MCP token minted for the test. */
export declare const token: string;
/** The arguments of one `create_booking` call. */
export declare const args: JsonObject;
