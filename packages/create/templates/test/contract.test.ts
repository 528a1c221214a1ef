import type { ContractFixture } from '@gatehousejs/testing';
import { describeContract } from '@gatehousejs/testing/vitest';
import { startHost, type TicketsHost } from './host.js';

/**
 * The contract suite of `@gatehousejs/testing`: it finds the tools through
 * `tools/list`, calls them as a client that ignores every hint would, and
 * checks each invariant by its effects (rows, mails, audit rows, log lines).
 * A tool added later is covered at once; give it a sample here.
 */
const fixture: ContractFixture<TicketsHost> = {
  name: 'tickets',
  start: startHost,
  limited: { rights: ['tickets.read'] },
  capabilities: { replay: true, audit: true, confirm: true },
  tools: {
    find_tickets: { sample: {}, listing: { args: {}, home: 'tk_acme_boiler', other: 'tk_globex_leak' } },
    get_ticket: { sample: { id: 'tk_acme_boiler' }, foreign: { id: 'tk_globex_leak' } },
    create_ticket: {
      sample: {
        title: 'Heating is off on floor 2',
        body: 'Since this morning.',
        requester_email: 'olga@example.com',
      },
      duplicate: {
        second: {
          title: 'Heating is off on floor 2',
          body: 'Still cold.',
          requester_email: 'olga@example.com',
        },
        updateTool: 'update_ticket',
      },
    },
    update_ticket: {
      sample: async (host) => ({
        id: 'tk_acme_boiler',
        status: 'closed',
        version: await host.versionOf('tk_acme_boiler'),
      }),
      foreign: async (host) => ({
        id: 'tk_globex_leak',
        status: 'closed',
        version: await host.versionOf('tk_globex_leak'),
      }),
      version: { read: { tool: 'get_ticket', args: { id: 'tk_acme_boiler' } } },
    },
    email_requester: {
      effect: 'notify',
      sample: { ticket_id: 'tk_acme_boiler', message: 'A technician comes on Monday.' },
      foreign: { ticket_id: 'tk_globex_leak', message: 'A technician comes on Monday.' },
    },
    // #if console
    delete_ticket: {
      effect: 'delete',
      sample: { ticket_id: 'tk_acme_invoice' },
      foreign: { ticket_id: 'tk_globex_login' },
    },
    // #endif
  },
};

describeContract(fixture, { fuzz: { numRuns: 20 } });
