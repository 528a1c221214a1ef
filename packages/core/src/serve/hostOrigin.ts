import type { AdmissionRefusal } from '../context.js';

/** The hostnames a local server answers to by default, for both `Host` and `Origin`. */
export const LOCAL_HOSTNAMES: readonly string[] = Object.freeze(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL is https, or plain http on a local hostname (a test or a desktop's own server). */
export const httpsOrLocal = (url: URL): boolean =>
  url.protocol === 'https:' || (url.protocol === 'http:' && LOCAL_HOSTNAMES.includes(url.hostname));

const forbidden = (reason: string): AdmissionRefusal => ({ status: 403, reason });

/**
 * Checks a `Host` header against allowed hostnames, port-agnostic (DNS
 * rebinding defence). A missing or unparsable header is refused. Same rules
 * as the SDK v2 `hostHeaderValidationResponse`, without loading SDK v2.
 */
export function checkHost(
  host: string | null | undefined,
  allowedHostnames: readonly string[],
): AdmissionRefusal | undefined {
  if (!host) return forbidden('Missing Host header');
  let hostname: string;
  try {
    hostname = new URL(`http://${host}`).hostname;
  } catch {
    return forbidden('Invalid Host header');
  }
  return allowedHostnames.includes(hostname) ? undefined : forbidden(`Invalid Host: ${hostname}`);
}

/**
 * Checks an `Origin` header against allowed hostnames, port-agnostic. A
 * missing or empty `Origin` passes (only browsers send it, and they are what
 * the check defends against); an unparsable one, including `null`, is
 * refused. An entry `<scheme>://*` allows every origin of a non-web scheme
 * (browser extensions). Same rules as the SDK v2 `originValidationResponse`.
 */
export function checkOrigin(
  origin: string | null | undefined,
  allowedHostnames: readonly string[],
): AdmissionRefusal | undefined {
  if (origin === null || origin === undefined || origin === '') return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return forbidden('Invalid Origin header');
  }
  if (url.hostname === '') return forbidden('Invalid Origin header');
  const web = url.protocol === 'http:' || url.protocol === 'https:';
  if (!web && allowedHostnames.includes(`${url.protocol}//*`)) return undefined;
  return allowedHostnames.includes(url.hostname) ? undefined : forbidden(`Invalid Origin: ${url.hostname}`);
}
