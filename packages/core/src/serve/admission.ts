import type { AdmissionRefusal, AuthDecision, Connection, PresentedCredential } from '../context.js';
import type { GatehouseServer } from '../server.js';
import { bearerRefusal, readBearer } from './bearer.js';
import { checkHost, checkOrigin } from './hostOrigin.js';
import { type AdmissionStep, type RefusalLog, silentRefusalLog } from './refusalLog.js';
import { DEFAULT_OUTAGE, type Outage, unavailableRefusal } from './unavailable.js';

export type { AdmissionStep } from './refusalLog.js';
export type { Outage, UnavailableOptions } from './unavailable.js';

/** An HTTP request as admission sees it: headers only, never the body. */
export interface HttpAdmissionInput {
  readonly transport: 'http';
  readonly host: string | null | undefined;
  readonly origin: string | null | undefined;
  readonly authorization: string | null | undefined;
  readonly allowedHosts: readonly string[];
  readonly allowedOrigins: readonly string[];
  /** The tenant the transport names (`tenantFrom`); asked only once a bearer token is there. */
  readonly tenant?: (() => string | undefined) | undefined;
  /** The client's address, for the refusal log only; asked only when the request is refused. */
  readonly clientAddress?: (() => string | undefined) | undefined;
}

/** A stdio request: the credential comes from configuration; there are no headers to check. */
export interface StdioAdmissionInput {
  readonly transport: 'stdio';
  readonly token: string;
  readonly tenant?: string | undefined;
}

/** What a transport hands to {@link admit}. */
export type AdmissionInput = HttpAdmissionInput | StdioAdmissionInput;

/** Admitted with a connection, or refused with the step that refused. */
export type Admission<TRight extends string = string> =
  | { readonly connection: Connection<TRight> }
  | { readonly refusal: AdmissionRefusal; readonly step: AdmissionStep };

type Refused = { readonly refusal: AdmissionRefusal; readonly step: AdmissionStep };
type Decided = Refused | { readonly token: string };

/** A store behind `during` failed or was too slow: reported as an outage, answered with a 503 naming no cause. */
function storeDown(error: unknown, outage: Outage): Refused {
  outage.report(error, 'outage');
  return { refusal: unavailableRefusal(outage), step: 'unavailable' };
}

/** The steps before the authenticator: admission guards, then Host/Origin and bearer where the transport has them. */
async function beforeCredential<TRight extends string>(
  server: GatehouseServer<TRight>,
  request: AdmissionInput,
  outage: Outage,
): Promise<Decided> {
  let gated: AdmissionRefusal | undefined;
  try {
    gated = await outage.deadlines.within(
      server.admit({ transport: request.transport }),
      'The admission guards',
    );
  } catch (error) {
    return storeDown(error, outage);
  }
  if (gated) return { refusal: gated, step: 'guard' };
  if (request.transport === 'stdio') return { token: request.token };
  const host = checkHost(request.host, request.allowedHosts);
  if (host) return { refusal: host, step: 'host' };
  const origin = checkOrigin(request.origin, request.allowedOrigins);
  if (origin) return { refusal: origin, step: 'origin' };
  const bearer = readBearer(request.authorization);
  if (!bearer.ok) return { refusal: bearerRefusal(bearer.problem), step: 'bearer' };
  return { token: bearer.token };
}

/**
 * Admits one request, the same way on every transport (Streamable HTTP, the
 * SDK v1 admission middleware, stdio, the SDK v1 mount): admission guards such as the
 * global kill switch (503) → `Host` and `Origin` where the transport has
 * them (403) → the bearer credential (401) → the host's authenticator,
 * which resolves the connection with live rights (401/403). Nothing is
 * cached: every request runs every step (I4, I6). A refusal is written to
 * `log` (rate-limited, no token material).
 *
 * An admission guard or authenticator that rejects, throws or does not answer
 * within `outage.timeoutMs` means a store it reads is down: the request is
 * refused with 503 and `Retry-After` (step `unavailable`, a reason that
 * names no cause), the error goes to the server's `onError`, and the next request
 * tries again, so service resumes as soon as the store answers. A `tenant`
 * reader that throws (host code, not a store) rejects: the transport fails
 * closed with a bare 500 and reports it.
 */
export async function admit<TRight extends string>(
  server: GatehouseServer<TRight>,
  request: AdmissionInput,
  log: RefusalLog = silentRefusalLog,
  outage: Outage = DEFAULT_OUTAGE,
): Promise<Admission<TRight>> {
  const before = await beforeCredential(server, request, outage);
  let decided: Refused;
  if ('token' in before) {
    const transportTenant = request.transport === 'stdio' ? request.tenant : request.tenant?.();
    const authenticated = await credential(server, { token: before.token, transportTenant }, outage);
    if ('connection' in authenticated) return authenticated;
    decided = authenticated;
  } else decided = before;
  log.refused({
    refusal: decided.refusal,
    step: decided.step,
    transport: request.transport,
    // an outage is the server's, not the client's: one line per window, whoever asked
    clientAddress: decided.step === 'unavailable' ? undefined : addressOf(request),
  });
  return decided;
}

/** The authenticator's decision, within the outage's time limit. */
async function credential<TRight extends string>(
  server: GatehouseServer<TRight>,
  presented: PresentedCredential,
  outage: Outage,
): Promise<Refused | { readonly connection: Connection<TRight> }> {
  let decision: AuthDecision<TRight>;
  try {
    decision = await outage.deadlines.within(server.authenticate(presented), 'The authenticator');
  } catch (error) {
    return storeDown(error, outage);
  }
  if (decision.ok) {
    const { connection } = decision;
    const named = presented.transportTenant;
    return { connection: named === undefined ? connection : { ...connection, transportTenant: named } };
  }
  return { refusal: { status: decision.status, reason: decision.reason }, step: 'credential' };
}

/** The client's address for the log; a reader that throws leaves it out and changes nothing else. */
function addressOf(request: AdmissionInput): string | undefined {
  if (request.transport !== 'http') return undefined;
  try {
    return request.clientAddress?.();
  } catch {
    return undefined;
  }
}
