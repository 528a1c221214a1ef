// The examples of docs/access/visibility.md; the regions below are quoted there verbatim.
import { createSwitches, planVisibility, toolsetVisibility } from '@gatehousejs/access';
import {
  ALLOW,
  createGatehouse,
  defineGuard,
  deny,
  MemoryAuditStore,
  MemoryRateBucketStore,
  MemorySwitchStore,
} from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { z } from 'zod';

/** The host's data: each workspace's plan, the workspaces in the beta, those with an overdue invoice. */
export const plans = new Map([
  ['ws_1', 'free'],
  ['ws_2', 'pro'],
]);
export const beta = new Set(['ws_2']);
export const overdue = new Set<string>();

const gh = createGatehouse({ rights: ['notes.read'] as const, services: () => ({}) });
const tool = (name: string, description: string) =>
  gh.defineTool({
    name,
    description,
    effect: 'read',
    requires: ['notes.read'],
    input: z.object({}),
    presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
    run: () => ({}),
  });
const tools = [
  tool('find_notes', 'Lists the notes of this workspace.'),
  tool('export_notes', 'Returns every note of this workspace for an export.'),
  tool('summarize_notes', 'Summarizes the notes of this workspace.'),
];

// #region tool-guard
/** Tools in beta: listed and callable only in the workspaces that joined it. */
const IN_BETA = new Set(['summarize_notes']);
export const betaVisibility = defineGuard({
  kind: 'visibility',
  name: 'beta',
  tool: (tool, connection) => {
    if (!IN_BETA.has(tool.name) || beta.has(connection.tenantId)) return ALLOW;
    return deny({
      code: 'tool_hidden',
      message: `${tool.name} is hidden: it is in beta, and this workspace has not joined.`,
      fix: 'Use find_notes, or ask a workspace admin to join the beta.',
      details: { tool: tool.name },
    });
  },
});
// #endregion tool-guard

// #region connection-guard
/** A workspace with an overdue invoice sees no tools at all: one decision per request. */
export const billingVisibility = defineGuard({
  kind: 'visibility',
  name: 'billing',
  connection: async (connection) => {
    if (!overdue.has(connection.tenantId)) return ALLOW;
    return deny({
      code: 'tenant_disabled',
      message: 'Agent access is paused: this workspace has an overdue invoice.',
      fix: 'Ask a workspace admin to settle the invoice on the billing page.',
    });
  },
});
// #endregion connection-guard

const audit = new MemoryAuditStore();
const switches = createSwitches({ store: new MemorySwitchStore(), audit });
const stores = { rateBuckets: new MemoryRateBucketStore() };

export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools,
  authenticate: async () => ({ ok: false, status: 401, reason: 'Plug in your credentials here.' }),
  // #region guards
  guards: [
    ...standardGuards(stores, { switches }), // rights hide what a connection may not call (I4)
    toolsetVisibility({ compact: ['find_notes'] }), // chosen per token: mint({ toolset: 'compact' })
    planVisibility({
      planOf: async (tenantId) => plans.get(tenantId) ?? 'free', // your plan lookup
      plans: { export_notes: ['pro'] }, // tools not named here are in every plan
    }),
    betaVisibility,
    billingVisibility,
  ],
  // #endregion guards
});
