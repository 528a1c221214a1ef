/**
 * The I3 list check against the booking product: its fixture's markers
 * (seed rows of ws_acme and ws_globex) catch a find tool that lists every
 * workspace's bookings, and the product as built passes.
 */
import type { CallResult, GatehouseServer, JsonObject } from '@gatehousejs/core';
import { runContractCheck } from '@gatehousejs/testing';
import { describe, expect, it } from 'vitest';
import type { Right } from '../src/domain/model.js';
import { bookingFixture } from './fixtures/contractHost.js';

const bookingsOf = (result: CallResult): unknown[] => {
  const inner = result.structuredContent.result as JsonObject | undefined;
  return Array.isArray(inner?.bookings) ? inner.bookings : [];
};

/** find_bookings without the tenant filter: the caller's workspace's bookings and ws_globex's. */
function unscopedFindBookings(server: GatehouseServer<Right>): GatehouseServer<Right> {
  return {
    name: server.name,
    version: server.version,
    logger: server.logger,
    authenticate: server.authenticate,
    approvals: server.approvals,
    admit: (request) => server.admit(request),
    listTools: (connection) => server.listTools(connection),
    async answer(connection, name, args, options) {
      return { result: await this.callTool(connection, name, args, options) };
    },
    async callTool(connection, name, args, options) {
      const own = await server.callTool(connection, name, args, options);
      if (name !== 'find_bookings' || own.isError) return own;
      const all = await server.callTool({ ...connection, tenantId: 'ws_globex' }, name, args, options);
      const structuredContent = {
        ...own.structuredContent,
        result: { bookings: [...bookingsOf(own), ...bookingsOf(all)] },
      } as JsonObject;
      return {
        ...own,
        content: [{ type: 'text', text: JSON.stringify(structuredContent) }],
        structuredContent,
      };
    },
  };
}

describe('I3.foreign-rows on the booking product', () => {
  it("fails a find_bookings that lists another workspace's bookings", async () => {
    const outcomes = await runContractCheck(
      bookingFixture({ kind: 'http', wrap: unscopedFindBookings }),
      'I3.foreign-rows',
      { tools: ['find_bookings'] },
    );
    expect(outcomes.map((o) => o.status)).toEqual(['failed']);
    expect(outcomes[0]?.findings.join('\n')).toMatch(
      /as home shows the other tenant's marker "bk_linus_leak" at content\[0\]\.text/,
    );
  });

  it('passes every list tool of the product as built', async () => {
    const outcomes = await runContractCheck(bookingFixture(), 'I3.foreign-rows');
    expect(outcomes.map((o) => [o.tool, o.status, o.findings])).toEqual([
      ['find_customers', 'passed', []],
      ['find_technicians', 'passed', []],
      ['find_bookings', 'passed', []],
    ]);
  });
});
