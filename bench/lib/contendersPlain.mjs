// A reference point, not a contender: a plain node:http JSON-RPC echo with no
// MCP SDK at all. Its req/s shows how much load the generator can deliver, so
// the contenders' figures are known to be limited by the servers, not the client.
import { createServer } from 'node:http';

export async function startPlainEcho() {
  const http = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const text = message.params?.arguments?.text ?? '';
      const result = { content: [{ type: 'text', text }], resultType: 'complete' };
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
    });
  });
  await new Promise((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', resolve);
  });
  const close = () =>
    new Promise((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return {
    id: 'plainEcho',
    label: 'plain node:http echo (ref)',
    url: `http://127.0.0.1:${http.address().port}/mcp`,
    close,
  };
}
