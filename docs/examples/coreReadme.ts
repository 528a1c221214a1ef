// The example of packages/core/README.md; the region below is quoted there verbatim.
// #region core-readme
import { createSwitches } from '@gatehousejs/access';
import {
  createGatehouse,
  jsonSchema,
  MemoryAuditStore,
  MemorySwitchStore,
  sha256Hex,
} from '@gatehousejs/core';
import { listen } from '@gatehousejs/core/node';
import { standardGuards } from '@gatehousejs/guards';

if (!process.env.GREETER_TOKEN) throw new Error('Set GREETER_TOKEN to a random secret.');
const tokenHash = sha256Hex(process.env.GREETER_TOKEN); // keep the hash, never log the token

const gh = createGatehouse({ rights: ['greet'] as const, services: () => ({ greeting: 'Hello' }) });

const greet = gh.defineTool({
  name: 'greet',
  description: 'Greets a person by name.',
  effect: 'read',
  requires: ['greet'],
  input: jsonSchema<{ name: string }>({
    type: 'object',
    properties: { name: { type: 'string', minLength: 1 } },
    required: ['name'],
  }),
  presenter: {
    outputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    present: (text: string) => ({ text }),
  },
  run: ({ input, services }) => `${services.greeting}, ${input.name}!`,
});

// The kill switches an operator flips (every change audited); off until then.
const switches = createSwitches({ store: new MemorySwitchStore(), audit: new MemoryAuditStore() });
const server = gh.createServer({
  name: 'greeter',
  version: '1.0.0',
  tools: [greet],
  // Every server needs these: tenant binding, live rights, both kill switches, output cleaning.
  guards: standardGuards({}, { switches }),
  authenticate: async ({ token }) =>
    sha256Hex(token) === tokenHash
      ? {
          ok: true,
          connection: {
            connectionId: 'c1',
            tenantId: 't1',
            creatorId: 'p1',
            clientName: 'demo',
            channel: 'mcp',
            rights: new Set(['greet'] as const),
          },
        }
      : { ok: false, status: 401, reason: 'Unknown token.' },
});
const { url } = await listen(server, { port: 3333 });
console.log(`MCP server on ${url}`);
// #endregion core-readme
