// What the compiled block of docs/writes/effect-ports.md uses without declaring it
// (scripts/checkDocsCode.mjs imports these names into the block).
import type { Connection } from '@gatehousejs/core';

export { createGatehouse } from '@gatehousejs/core';

export const RIGHTS = ['bookings.read', 'bookings.write', 'customers.notify'] as const;

export declare const mailer: { send(to: string, text: string): Promise<void> };
export declare const pager: { page(technicianId: string, text: string): Promise<void> };
export declare const alertControl: { mute(ruleId: string, minutes: number): Promise<void> };
export declare const jobQueue: { enqueue(job: string, payload: object): Promise<void> };

/** The product's database handle. */
export declare const db: object;

/** The product's services: they reach the outside world only through the ports they receive. */
export declare class Services {
  constructor(
    db: object,
    connection: Connection,
    ports: {
      readonly mailer: typeof mailer;
      readonly pager: typeof pager;
      readonly alerts: typeof alertControl;
      readonly jobs: typeof jobQueue;
    },
  );
}
