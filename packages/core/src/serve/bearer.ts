import type { AdmissionRefusal } from '../context.js';

/** The outcome of reading an `Authorization` header. */
export type BearerToken =
  | { readonly ok: true; readonly token: string }
  | { readonly ok: false; readonly problem: 'missing' | 'malformed' };

// RFC 6750 b64token: letters, digits and -._~+/ with trailing "=" padding.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Extracts a bearer token; anything but exactly `Bearer <b64token>` is malformed. */
export function readBearer(header: string | null | undefined): BearerToken {
  if (header === null || header === undefined || header.trim() === '')
    return { ok: false, problem: 'missing' };
  const match = /^Bearer +(\S+)\s*$/i.exec(header);
  if (!match || !B64TOKEN.test(match[1]!)) return { ok: false, problem: 'malformed' };
  return { ok: true, token: match[1]! };
}

/** The 401 for a request whose `Authorization` header is missing or not `Bearer <token>`. */
export function bearerRefusal(problem: 'missing' | 'malformed'): AdmissionRefusal {
  return problem === 'missing'
    ? { status: 401, reason: 'A bearer token is required.', credentialsMissing: true }
    : { status: 401, reason: 'The Authorization header is malformed.' };
}
