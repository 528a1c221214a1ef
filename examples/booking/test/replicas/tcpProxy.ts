/**
 * A TCP proxy the test owns between the server processes and PostgreSQL, so
 * a test can take the database away without touching the shared service:
 * `cut('refuse')` drops every open connection and resets new ones (the
 * database is down), `cut('stall')` accepts and forwards nothing (the
 * database hangs), `restore()` forwards again.
 */
import { createServer, type Server, Socket } from 'node:net';

export type CutMode = 'refuse' | 'stall';

export interface TcpProxy {
  /** The port to connect to instead of the target's. */
  readonly port: number;
  /** Connections forwarded so far. */
  readonly forwarded: number;
  cut(mode?: CutMode): void;
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port forwarding to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let mode: CutMode | 'open' = 'open';
  let forwarded = 0;
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'refuse') {
      client.resetAndDestroy();
      return;
    }
    if (mode === 'stall') return; // held open, never answered, until restore() or close()
    forwarded++;
    const upstream = new Socket();
    track(upstream);
    upstream.connect(target.port, target.host);
    client.pipe(upstream).pipe(client);
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const dropAll = () => {
    for (const socket of open) socket.destroy();
  };
  return {
    port,
    get forwarded() {
      return forwarded;
    },
    cut(next: CutMode = 'refuse') {
      mode = next;
      dropAll();
    },
    restore() {
      mode = 'open';
      dropAll(); // stalled connections fail now; the pool opens fresh ones
    },
    close: () =>
      new Promise<void>((resolve) => {
        dropAll();
        server.close(() => resolve());
      }),
  };
}
