import { createServer } from 'node:net';

/**
 * Below Linux's ephemeral range (32768–60999 by default), from which both
 * `listen(0)` and every outgoing connection draw their ports: a port chosen
 * here and bound a moment later is not taken meanwhile by another test's
 * client socket or its own `listen(0)`.
 */
const LOW = 20_000;
const HIGH = 32_000;

/** Whether `port` can be bound on loopback right now. */
const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * `count` distinct loopback ports nobody listens on right now, for a process
 * the test starts with its port fixed in advance (a server that must be found
 * before it prints anything).
 */
export async function freeLoopbackPorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  for (let tries = 0; ports.size < count; tries++) {
    if (tries > 1_000) throw new Error('No free loopback port found below the ephemeral range.');
    const port = LOW + Math.floor(Math.random() * (HIGH - LOW));
    if (!ports.has(port) && (await bindable(port))) ports.add(port);
  }
  return [...ports];
}
