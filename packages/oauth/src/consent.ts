import type { Credentials } from '@gatehousejs/access';
import { ToolError } from '@gatehousejs/core';
import { epochSeconds } from './adapter.js';
import { rightsOfScopes } from './scopes.js';
import { type AuthorizationServer, providerOf } from './server.js';

/**
 * How the authorization server knows a client, which is how far its name
 * can be believed: registered by the operator (the name is the operator's),
 * a Client ID Metadata Document at a URL (the name is whatever that host
 * serves), or registered by itself through dynamic registration (the name
 * is whatever it sent).
 */
export type ClientProvenance =
  | { readonly kind: 'registered' }
  | { readonly kind: 'metadata'; readonly host: string }
  | { readonly kind: 'dynamic' };

/** What a client asks for, as the consent page shows it. */
export interface ConsentRequest<TRight extends string = string> {
  readonly uid: string;
  readonly clientId: string;
  /** The client's own name (from its metadata), or its id; untrusted text, cleaned and escaped when shown. */
  readonly clientName: string;
  readonly provenance: ClientProvenance;
  readonly redirectUri: string;
  /** The host (and port) the browser is sent to with the code. */
  readonly redirectHost: string;
  /** The rights the client asks for (its scopes that are rights). */
  readonly rights: readonly TRight[];
  /** Whether it asks for a refresh token (`offline_access`). */
  readonly offline: boolean;
  /** Whether it asks for OpenID Connect (`openid`: needed for `max_age`); grants no right. */
  readonly openid: boolean;
  /**
   * When the authorization request arrived, to the second (epoch ms of the
   * second's start: the provider keeps times in whole seconds).
   */
  readonly requestedAt: number;
  /** Whether the request asks the person to sign in again (`prompt=login`). */
  readonly freshSignIn: boolean;
  /** The `max_age` of the request in seconds: a sign-in older than that is asked again. */
  readonly maxAgeSeconds: number | undefined;
}

const MAX_SHOWN_NAME = 100;

function provenanceOf(clientId: string, issuedAt: unknown): ClientProvenance {
  const url = clientId.startsWith('https://') ? URL.parse(clientId) : null;
  if (url) return { kind: 'metadata', host: url.host };
  return typeof issuedAt === 'number' ? { kind: 'dynamic' } : { kind: 'registered' };
}

function maxAgeOf(value: unknown): number | undefined {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN;
  return Number.isSafeInteger(seconds) && seconds >= 0 ? seconds : undefined;
}

/** The person answering, and what they grant. */
export interface ConsentAnswer {
  readonly personId: string;
  /** When the person signed in (epoch ms): the grant's authentication time. */
  readonly signedInAt: number;
  readonly workspaceId: string;
  readonly rights: readonly string[];
  readonly toolset: string | null;
}

/** The interaction `uid` as the provider stores it, or undefined when unknown or expired. */
export async function consentRequest<TRight extends string>(
  server: AuthorizationServer<TRight>,
  uid: string,
): Promise<ConsentRequest<TRight> | undefined> {
  const provider = await providerOf(server);
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return undefined;
  const params = interaction.params as Record<string, unknown>;
  const clientId = typeof params.client_id === 'string' ? params.client_id : '';
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client) return undefined;
  const scopes = (typeof params.scope === 'string' ? params.scope : '').split(' ').filter(Boolean);
  const redirectUri = typeof params.redirect_uri === 'string' ? params.redirect_uri : '';
  const name = typeof client.clientName === 'string' && client.clientName ? client.clientName : clientId;
  const prompts = (typeof params.prompt === 'string' ? params.prompt : '').split(' ');
  return {
    uid,
    clientId,
    clientName: [...name].slice(0, MAX_SHOWN_NAME).join(''),
    provenance: provenanceOf(clientId, client.clientIdIssuedAt),
    redirectUri,
    redirectHost: URL.parse(redirectUri)?.host ?? redirectUri,
    rights: rightsOfScopes(server.scopes, scopes),
    offline: scopes.includes('offline_access'),
    openid: scopes.includes('openid'),
    // an interaction is saved once with its lifetime, so its expiry tells when the request arrived
    requestedAt: ((interaction.exp ?? 0) - server.lifetimes.interactionSeconds) * 1000,
    freshSignIn: prompts.includes('login'),
    maxAgeSeconds: maxAgeOf(params.max_age),
  };
}

/**
 * Whether a sign-in at `signedInAt` is recent enough for the request: after
 * the request arrived (in a later second) when it asks for a new sign-in
 * (`prompt=login`);
 * within `max_age` (or after the request) when it names one; any live
 * session otherwise.
 */
export function signInFreshEnough(request: ConsentRequest<string>, signedInAt: number, now: number): boolean {
  // the request's time is known to the second: a sign-in counts as after it from the next second on
  const sinceRequest = signedInAt >= request.requestedAt + 1000;
  if (request.freshSignIn) return sinceRequest;
  if (request.maxAgeSeconds !== undefined)
    return sinceRequest || now - signedInAt <= request.maxAgeSeconds * 1000;
  return true;
}

/** Why a consent could not be recorded, in words for the person. */
export type ConsentRefusal = { readonly error: string };

function checkAnswer<TRight extends string>(
  server: AuthorizationServer<TRight>,
  request: ConsentRequest<TRight>,
  answer: ConsentAnswer,
): ConsentRefusal | TRight[] {
  const toolsets = Object.keys(server.scopes.toolsets ?? {});
  const asked = new Set<string>(request.rights);
  const rights = [...new Set(answer.rights)];
  const unasked = rights.filter((r) => !asked.has(r));
  if (unasked.length > 0) return { error: `The client did not ask for ${unasked.join(', ')}.` };
  if (rights.length === 0) return { error: 'Grant at least one right, or deny the request.' };
  if (answer.toolset !== null && !toolsets.includes(answer.toolset))
    return {
      error:
        toolsets.length > 0
          ? `Unknown toolset; choose one of: ${toolsets.join(', ')}.`
          : 'No toolsets are offered.',
    };
  return rights as TRight[];
}

/**
 * Records a person's consent: mints a Gatehouse credential for the one
 * workspace (I3) with the chosen rights, refused when the person does not
 * hold one of them now (I4), audited and listed on the tokens page; creates
 * the provider's grant with the credential's id as its id (rights granted,
 * the rest rejected), and finishes the interaction. Returns where the
 * browser resumes the authorization, or why nothing was recorded.
 */
export async function grantConsent<TRight extends string>(
  server: AuthorizationServer<TRight>,
  credentials: Credentials<TRight>,
  request: ConsentRequest<TRight>,
  answer: ConsentAnswer,
  now: number,
): Promise<{ readonly returnTo: string } | ConsentRefusal> {
  const rights = checkAnswer(server, request, answer);
  if (!Array.isArray(rights)) return rights;
  const provider = await providerOf(server);
  const interaction = await provider.Interaction.find(request.uid);
  if (!interaction) return { error: 'This authorization request expired. Start again from the client.' };
  let credentialId: string;
  try {
    const { credential } = await credentials.mint({
      tenantIds: [answer.workspaceId],
      creatorId: answer.personId,
      rights,
      clientLabel: `OAuth: ${request.clientName}`.slice(0, 100),
      toolset: answer.toolset,
      expiresAt: now + server.lifetimes.grantSeconds * 1000,
      channel: 'oauth',
    });
    credentialId = credential.id;
  } catch (error) {
    if (ToolError.is(error)) return { error: error.message };
    throw error;
  }
  // the grant's id is the credential's: revoking either ends the other (oidc-provider takes a given jti)
  const fields = { jti: credentialId, accountId: answer.personId, clientId: request.clientId };
  const grant = new provider.Grant(fields);
  const resource = server.resource();
  // the rights are scopes of the resource and of the provider (see createProvider): granted on both
  grant.addResourceScope(resource, rights.join(' '));
  grant.addOIDCScope(rights.join(' '));
  const rejected = request.rights.filter((r) => !rights.includes(r));
  if (rejected.length > 0) {
    grant.rejectResourceScope(resource, rejected.join(' '));
    grant.rejectOIDCScope(rejected.join(' '));
  }
  if (request.offline) grant.addOIDCScope('offline_access');
  if (request.openid) grant.addOIDCScope('openid');
  const grantId = await grant.save();
  const login = { accountId: answer.personId, ts: epochSeconds(answer.signedInAt), remember: false };
  interaction.result = { login, consent: { grantId } };
  await interaction.save((interaction.exp ?? epochSeconds(now) + 60) - epochSeconds(now));
  return { returnTo: interaction.returnTo };
}

/** Records a refusal: the client gets `access_denied`; nothing is minted. */
export async function denyConsent(
  server: AuthorizationServer<string>,
  uid: string,
  now: number,
): Promise<string | undefined> {
  const provider = await providerOf(server);
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return undefined;
  interaction.result = { error: 'access_denied', error_description: 'The person declined the request.' };
  await interaction.save((interaction.exp ?? epochSeconds(now) + 60) - epochSeconds(now));
  return interaction.returnTo;
}
