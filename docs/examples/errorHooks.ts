// The error hook of docs/errors.md and docs/serving.md; the regions below are quoted there verbatim.
import { createSwitches } from '@gatehousejs/access';
import {
  createGatehouse,
  type ErrorFacts,
  errorLog,
  type Logger,
  MemoryAuditStore,
  MemorySwitchStore,
  type OnError,
} from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { z } from 'zod';

/** The team's error tracker (in memory here). */
export const tracker = {
  captured: [] as { readonly error: Error; readonly facts: ErrorFacts }[],
  capture(error: Error, facts: ErrorFacts) {
    this.captured.push({ error, facts });
  },
};

/** The lines `errorLog` writes (a pino logger in production). */
export const lines: { level: string; record: object }[] = [];
const logger: Logger = {
  info: (record) => lines.push({ level: 'info', record }),
  warn: (record) => lines.push({ level: 'warn', record }),
  error: (record) => lines.push({ level: 'error', record }),
};

// #region on-error
const log = errorLog(logger); // one line per failed call; outages and transport faults once a minute

// Every unexpected error, of a call or of a transport; the model saw only the correlation id.
const onError: OnError = (error, facts) => {
  tracker.capture(error, facts); // facts: { kind: 'outage' | 'fault', transport?, correlationId? }
  log(error, facts); // never the error's message, stack or cause
};
// #endregion on-error

const gh = createGatehouse({ rights: ['notes.read'] as const, services: () => ({}) });
const broken = gh.defineTool({
  name: 'find_notes',
  description: 'Finds notes.',
  effect: 'read',
  input: z.object({}),
  presenter: { outputSchema: { type: 'object' }, present: () => ({}) },
  run: () => {
    throw new Error('connect ECONNREFUSED 10.0.0.7:5432');
  },
});

export const server = gh.createServer({
  name: 'notes',
  version: '1.0.0',
  tools: [broken],
  authenticate: async () => ({ ok: false, status: 401, reason: 'Unknown token.' }),
  guards: standardGuards(
    {},
    { switches: createSwitches({ store: new MemorySwitchStore(), audit: new MemoryAuditStore() }) },
  ),
  onError, // or onError: errorLog(logger) alone
});
