// What the compiled blocks of docs/errors.md use without declaring it
// (scripts/checkDocsCode.mjs imports these names into each block).
import type { Connection, ErrorCode, JsonObject } from '@gatehousejs/core';

/** The booking id a service was asked for. */
export declare const id: string;

export const rights = ['bookings.read', 'bookings.write'] as const;
export declare function services(connection: Connection<(typeof rights)[number]>): {
  readonly bookings: unknown;
};

/** The product's own error, thrown by services that also serve a REST API, a CLI or pages. */
export class DomainError extends Error {
  constructor(
    readonly kind: 'missing' | 'taken' | 'stale',
    message: string,
    readonly fix: string,
    readonly details?: JsonObject,
  ) {
    super(message);
  }
}

/** Each domain error kind as a tool error code. */
export const CODE_OF = {
  missing: 'not_found',
  taken: 'duplicate',
  stale: 'conflict',
} as const satisfies Record<DomainError['kind'], ErrorCode>;
