// HTTP load generator, run as a forked child process (see run.mjs for why).
// It receives one job at a time over IPC, drives `concurrency` keep-alive
// connections for `durationMs`, checks every response and reports counts.
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';

const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const ECHO_TEXT = 'hello from the bench';
const MAX_ERROR_SAMPLES = 5;

/** The body of one request; `id` changes per request so responses can be matched. */
function bodyOf(job, id) {
  const params = job.method === 'tools/call' ? { name: 'echo', arguments: { text: ECHO_TEXT } } : {};
  if (job.era === MODERN) {
    params._meta = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'gatehouse-bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
  }
  return JSON.stringify({ jsonrpc: '2.0', id, method: job.method, params });
}

function headersOf(job) {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': job.era === MODERN ? MODERN : LEGACY,
    authorization: `Bearer ${job.token}`,
  };
  if (job.era === MODERN) {
    headers['mcp-method'] = job.method;
    if (job.method === 'tools/call') headers['mcp-name'] = 'echo';
  }
  return headers;
}

/** The JSON-RPC message of a response body: plain JSON, or the last `data:` line of an SSE stream. */
function messageOf(contentType, text) {
  if (contentType.startsWith('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim());
    return JSON.parse(data.at(-1) ?? 'null');
  }
  return JSON.parse(text);
}

/** Why a response is not a success, or undefined when it is one. */
function problemOf(job, id, status, contentType, text) {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 200)}`;
  let message;
  try {
    message = messageOf(contentType, text);
  } catch {
    return `unparsable body (${contentType}): ${text.slice(0, 200)}`;
  }
  if (message?.id !== id) return `wrong or missing id: ${text.slice(0, 200)}`;
  if (message.error) return `JSON-RPC error: ${JSON.stringify(message.error).slice(0, 200)}`;
  const result = message.result;
  if (!result) return `no result: ${text.slice(0, 200)}`;
  if (job.method === 'tools/list') {
    return result.tools?.some((tool) => tool.name === 'echo') ? undefined : 'tools/list lacks echo';
  }
  if (result.isError) return `tool error: ${JSON.stringify(result).slice(0, 200)}`;
  const blocks = result.content ?? [];
  if (!blocks.some((block) => block.type === 'text' && block.text.includes(ECHO_TEXT))) {
    return `echo text missing: ${JSON.stringify(result).slice(0, 200)}`;
  }
  return undefined;
}

function send(agent, url, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers }, (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs one job: `concurrency` loops, each sending the next request when the last one answered. */
async function run(job) {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const url = new URL(job.url);
  const headers = headersOf(job);
  const latencies = [];
  const errorSamples = [];
  let nextId = 1;
  let ok = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + job.durationMs;
  const loop = async () => {
    while (performance.now() < deadline) {
      const id = nextId++;
      const body = bodyOf(job, id);
      const t0 = performance.now();
      let problem;
      try {
        const res = await send(agent, url, { ...headers, 'content-length': Buffer.byteLength(body) }, body);
        problem = problemOf(job, id, res.status, res.contentType, res.text);
      } catch (error) {
        problem = `transport: ${error?.message ?? String(error)}`;
      }
      latencies.push(performance.now() - t0);
      if (problem === undefined) ok++;
      else {
        errors++;
        if (errorSamples.length < MAX_ERROR_SAMPLES) errorSamples.push(problem);
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pick = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { ok, errors, errorSamples, elapsedMs, p50Ms: pick(0.5), p99Ms: pick(0.99) };
}

process.on('message', (message) => {
  if (message?.type === 'stop') {
    process.disconnect();
    return;
  }
  if (message?.type !== 'run') return;
  run(message.job).then(
    (result) => process.send({ type: 'result', key: message.key, result }),
    (error) => process.send({ type: 'failed', key: message.key, error: String(error?.stack ?? error) }),
  );
});
process.send({ type: 'ready' });
