import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConfigurationError } from '../errors.js';
import { within } from './unavailable.js';

/** Options of `listen`'s health endpoints, `GET /healthz` and `GET /readyz`. */
export interface HealthOptions {
  /**
   * The readiness probe, asked on every `GET /readyz` (concurrent probes
   * share one call): resolving in time means ready; rejecting, throwing or
   * taking longer than `timeoutMs` means not ready. Its error is not shown
   * nor reported. Typically one cheap read through the product's stores.
   * Without it, the server is ready whenever it is not draining.
   */
  readonly ready?: () => Promise<unknown>;
  /** Most milliseconds `/readyz` waits for `ready`; default 2,000. */
  readonly timeoutMs?: number;
}

/** The fixed paths of the health endpoints. */
export const HEALTH_PATHS: readonly string[] = Object.freeze(['/healthz', '/readyz']);

const DEFAULT_READY_TIMEOUT_MS = 2_000;

/** Answers a health request when `pathname` is a health path; false otherwise (the request is not touched). */
export type HealthEndpoints = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

/** Checks `listen`'s `health` option up front. */
function checkHealth(options: HealthOptions | undefined): Required<HealthOptions> {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new ConfigurationError('listen: health must be an object { ready?, timeoutMs? }.');
  }
  const ready = options?.ready ?? (() => Promise.resolve());
  const timeoutMs = options?.timeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  if (typeof ready !== 'function') {
    throw new ConfigurationError('listen: health.ready must be a function () => Promise.');
  }
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > 2_147_483_647) {
    throw new ConfigurationError('listen: health.timeoutMs must be a positive integer of milliseconds.');
  }
  return { ready, timeoutMs };
}

function answer(res: ServerResponse, status: number, text: string, extra: Record<string, string> = {}): void {
  res
    .writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'content-length': String(Buffer.byteLength(text)),
      ...extra,
    })
    .end(text);
}

/**
 * The health endpoints of `listen`, answered before any other handler,
 * without authentication and without reading a body: `/healthz` is 200 `ok`
 * while the process serves; `/readyz` is 200 `ready` when the `ready` probe
 * resolves within `timeoutMs` and the server is not draining, else 503
 * `not ready` or `draining` (never a cause). GET and HEAD; other methods 405.
 */
export function healthEndpoints(
  options: HealthOptions | undefined,
  draining: () => boolean,
): HealthEndpoints {
  const { ready, timeoutMs } = checkHealth(options);
  let probing: Promise<boolean> | undefined;
  const probe = (): Promise<boolean> =>
    (probing ??= within(
      Promise.resolve().then(() => ready()),
      timeoutMs,
      'The readiness probe',
    )
      .then(
        () => true,
        () => false,
      )
      .finally(() => {
        probing = undefined;
      }));

  const readiness = async (res: ServerResponse): Promise<void> => {
    if (draining()) return answer(res, 503, 'draining');
    const ok = await probe();
    if (draining()) return answer(res, 503, 'draining');
    answer(res, ok ? 200 : 503, ok ? 'ready' : 'not ready');
  };

  return function healthEndpoint(req, res, pathname) {
    if (pathname !== '/healthz' && pathname !== '/readyz') return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      answer(res, 405, 'Method Not Allowed', { allow: 'GET, HEAD' });
      return true;
    }
    if (pathname === '/healthz') answer(res, 200, 'ok');
    else void readiness(res);
    return true;
  };
}
