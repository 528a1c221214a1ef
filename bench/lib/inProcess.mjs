// Section 1: guard overhead in-process. The same silent `write` handler (an
// in-memory insert and a small presenter) called bare and through the whole
// Gatehouse pipeline (`server.callTool`: the replay stage and the unit of work
// included, as every write carries them), in alternating rounds.
import { createGatehouse, MemoryAuditStore, MemoryReplayStore, separateCommits } from '@gatehousejs/core';
import { standardGuards } from '@gatehousejs/guards';
import { z } from 'zod';
import { benchAuthenticate, benchConnection, benchSwitches } from './contenders.mjs';
import { collect, median, quantile } from './stats.mjs';

const RIGHTS = ['notes.write'];

/** The product's storage and presenter, shared by both ways of calling. */
export class NoteTable {
  rows = new Map();
  nextId = 1;
  insert(tenantId, creatorId, text) {
    const note = { id: `n${this.nextId++}`, tenantId, creatorId, text, secret: 'DECOY' };
    this.rows.set(note.id, note);
    return note;
  }
}
const noteInput = () => z.object({ text: z.string().min(1).max(200), pinned: z.boolean().optional() });
const presentNote = (note) => ({ id: note.id, text: note.text });
const NOTE_OUTPUT = {
  type: 'object',
  properties: { id: { type: 'string' }, text: { type: 'string' } },
  required: ['id', 'text'],
};

/** (a) Bare: a plain async function with a zod parse. */
function bareWrite(table) {
  const schema = noteInput();
  const connection = benchConnection(RIGHTS);
  return async (args) => {
    const input = schema.parse(args);
    return presentNote(table.insert(connection.tenantId, connection.creatorId, input.text));
  };
}

/** What a transport tells telemetry about each bench call. */
const FACTS = { method: 'tools/call', tool: 'append_note', transport: 'http', protocolVersion: '2026-07-28' };

/**
 * (b) Gatehouse: `createGatehouse(...).createServer({ ..., authenticate }).callTool`.
 * With `telemetry`, each call starts its span as a transport does and hands it to callTool.
 */
export function gatehouseWrite(table, { telemetry } = {}) {
  const gh = createGatehouse({
    rights: RIGHTS,
    services: (connection) => ({
      notes: { create: (text) => table.insert(connection.tenantId, connection.creatorId, text) },
    }),
  });
  const appendNote = gh.defineTool({
    name: 'append_note',
    description: 'Appends a note to the notes log.',
    effect: 'write',
    requires: ['notes.write'],
    input: noteInput(),
    presenter: { outputSchema: NOTE_OUTPUT, present: presentNote },
    run: ({ input, services }) => services.notes.create(input.text),
  });
  const server = gh.createServer({
    name: 'bench-notes',
    version: '1.0.0',
    tools: [appendNote],
    authenticate: benchAuthenticate(RIGHTS),
    // every MCP write is audited (I15) and replay-protected (I10), in a unit of work, behind the
    // tenant, rights, kill-switch and output guards: the memory stores are part of the measured pipeline
    audit: new MemoryAuditStore(),
    unitOfWork: separateCommits(),
    guards: standardGuards({ replay: new MemoryReplayStore() }, { switches: benchSwitches() }),
    ...(telemetry ? { telemetry } : {}),
  });
  const connection = benchConnection(RIGHTS);
  let requestId = 0;
  return async (args) => {
    const id = ++requestId;
    const span = server.telemetry?.request({ ...FACTS, requestId: id });
    const result = await server.callTool(connection, 'append_note', args, { requestId: id, span });
    if (result.isError) throw new Error(`Gatehouse refused a bench call: ${result.content[0].text}`);
    return result;
  };
}

/** Numbers every call's text, so each is a new write, never a replay of an earlier one (I10). */
let sequence = 0;

/** Times `calls` sequential calls one by one; returns per-call µs and the round's wall time. */
async function timeRound(fn, calls) {
  const perCall = new Float64Array(calls);
  collect();
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const args = { text: `Buy milk on the way home #${++sequence}` };
    const t0 = performance.now();
    await fn(args);
    perCall[i] = (performance.now() - t0) * 1000;
  }
  return { perCall, wallMs: performance.now() - started };
}

/**
 * Alternating rounds: round r runs the contenders in rotated order, so drift
 * (thermal, GC pressure, a noisy neighbour) hits each of them alike.
 */
export async function runInProcess(plan, extra = []) {
  return alternate(
    [
      { id: 'bare', label: 'bare handler (zod parse)', make: () => bareWrite(new NoteTable()) },
      { id: 'gatehouse', label: 'Gatehouse callTool', make: () => gatehouseWrite(new NoteTable()) },
      ...extra,
    ],
    plan,
  );
}

/** Runs `contenders` ({ id, label, make() → fn(args) }) in alternating rounds; per-call figures for each. */
export async function alternate(contenders, { rounds, calls, warmupCalls }) {
  const fns = contenders.map((c) => c.make());
  for (const fn of fns) await timeRound(fn, warmupCalls);
  const samples = contenders.map(() => []);
  const wall = contenders.map(() => 0);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = (k + r) % contenders.length;
      const { perCall, wallMs } = await timeRound(fns[i], calls);
      samples[i].push(...perCall);
      wall[i] += wallMs;
    }
  }
  return contenders.map((c, i) => ({
    id: c.id,
    label: c.label,
    calls: samples[i].length,
    medianUs: median(samples[i]),
    p90Us: quantile(samples[i], 0.9),
    p99Us: quantile(samples[i], 0.99),
    opsPerSec: (samples[i].length / wall[i]) * 1000,
  }));
}
