// Section 3, handler half: one request through the web-standard `fetch` face of
// each HTTP handler, in-process (no sockets, no second process), so the cost of
// serving a request (gate, per-request server construction, dispatch) is measured
// without the network noise of section 2.
import { createMcpHandler } from '@modelcontextprotocol/server';
import { BENCH_TOKEN, gatehouseEchoServer, lowLevelServer, mcpServer } from './contenders.mjs';
import { collect, median } from './stats.mjs';

const MODERN = '2026-07-28';
const URL_ = 'http://127.0.0.1:3000/mcp';

function requestFor(method, id) {
  const params = {
    ...(method === 'tools/call' ? { name: 'echo', arguments: { text: 'hello from the bench' } } : {}),
    _meta: {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'gatehouse-bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  };
  return new Request(URL_, {
    method: 'POST',
    headers: {
      host: '127.0.0.1:3000',
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': method,
      ...(method === 'tools/call' ? { 'mcp-name': 'echo' } : {}),
      authorization: `Bearer ${BENCH_TOKEN}`,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
}

/** Builds the handlers; Gatehouse's comes from `@gatehousejs/core/http` when the build exports it. */
async function handlers() {
  const list = [
    { id: 'lowLevel', label: 'SDK low-level Server', handler: createMcpHandler(() => lowLevelServer()) },
    { id: 'mcpServer', label: 'SDK McpServer + zod', handler: createMcpHandler(() => mcpServer()) },
  ];
  try {
    const { createHttpHandler } = await import('@gatehousejs/core/http');
    list.push({
      id: 'gatehouse',
      label: 'Gatehouse createHttpHandler',
      handler: createHttpHandler(gatehouseEchoServer()),
    });
  } catch (error) {
    list.push({
      id: 'gatehouse',
      label: 'Gatehouse createHttpHandler',
      startError: `@gatehousejs/core/http: ${error?.message ?? error}`,
    });
  }
  return list;
}

async function timeRound(handler, method, calls, problems) {
  const perCall = new Float64Array(calls);
  collect();
  for (let i = 0; i < calls; i++) {
    const request = requestFor(method, i + 1);
    const t0 = performance.now();
    let problem;
    try {
      const response = await handler.fetch(request);
      const body = await response.json();
      if (response.status !== 200 || !body.result || body.result.isError) {
        problem = `HTTP ${response.status}: ${JSON.stringify(body).slice(0, 160)}`;
      }
    } catch (error) {
      problem = `threw: ${error?.message ?? error}`;
    }
    perCall[i] = (performance.now() - t0) * 1000;
    if (problem && problems.length < 3) problems.push(problem);
  }
  return perCall;
}

/** Median µs per request for tools/list and tools/call, alternating rounds. */
export async function runHandlers({ rounds, calls }) {
  const list = await handlers();
  const live = list.filter((h) => !h.startError);
  const rows = [];
  for (const method of ['tools/list', 'tools/call']) {
    const samples = new Map(live.map((h) => [h.id, []]));
    const problems = new Map(live.map((h) => [h.id, []]));
    for (const h of live) await timeRound(h.handler, method, calls, problems.get(h.id));
    for (let r = 0; r < rounds; r++) {
      for (let k = 0; k < live.length; k++) {
        const h = live[(k + r) % live.length];
        samples.get(h.id).push(...(await timeRound(h.handler, method, calls, problems.get(h.id))));
      }
    }
    for (const h of list) {
      const s = samples.get(h.id) ?? [];
      const errors = problems.get(h.id) ?? [];
      rows.push({ method, id: h.id, label: h.label, medianUs: median(s), failed: h.startError, errors });
    }
  }
  return rows;
}
