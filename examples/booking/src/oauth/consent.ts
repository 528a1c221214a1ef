import type { Credentials } from '@gatehousejs/access';
import { ToolError } from '@gatehousejs/core';
import type { Right } from '../domain/model.js';
import { epochSeconds } from './adapter.js';
import { GRANT_SECONDS } from './lifetimes.js';
import { rightsOfScopes, TOOLSETS } from './scopes.js';
import type { AuthorizationServer } from './server.js';

/** What a client asks for, as the consent page shows it. */
export interface ConsentRequest {
  readonly uid: string;
  readonly clientId: string;
  /** The client's own name (from its metadata), or its id; untrusted text, escaped when shown. */
  readonly clientName: string;
  readonly redirectUri: string;
  /** The rights the client asks for (its scopes that are rights). */
  readonly rights: readonly Right[];
  /** Whether it asks for a refresh token (`offline_access`). */
  readonly offline: boolean;
}

/** The person answering, and what they grant. */
export interface ConsentAnswer {
  readonly personId: string;
  readonly workspaceId: string;
  readonly rights: readonly string[];
  readonly toolset: string | null;
}

/** The interaction `uid` as the provider stores it, or undefined when unknown or expired. */
export async function consentRequest(
  server: AuthorizationServer,
  uid: string,
): Promise<ConsentRequest | undefined> {
  const provider = await server.provider();
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return undefined;
  const params = interaction.params as Record<string, unknown>;
  const clientId = typeof params.client_id === 'string' ? params.client_id : '';
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client) return undefined;
  const scopes = (typeof params.scope === 'string' ? params.scope : '').split(' ').filter(Boolean);
  return {
    uid,
    clientId,
    clientName: typeof client.clientName === 'string' && client.clientName ? client.clientName : clientId,
    redirectUri: typeof params.redirect_uri === 'string' ? params.redirect_uri : '',
    rights: rightsOfScopes(scopes),
    offline: scopes.includes('offline_access'),
  };
}

/** Why a consent could not be recorded, in words for the person. */
export type ConsentRefusal = { readonly error: string };

function checkAnswer(request: ConsentRequest, answer: ConsentAnswer): ConsentRefusal | Right[] {
  const asked = new Set<string>(request.rights);
  const rights = [...new Set(answer.rights)];
  const unasked = rights.filter((r) => !asked.has(r));
  if (unasked.length > 0) return { error: `The client did not ask for ${unasked.join(', ')}.` };
  if (rights.length === 0) return { error: 'Grant at least one right, or deny the request.' };
  if (answer.toolset !== null && !(TOOLSETS as readonly string[]).includes(answer.toolset))
    return { error: `Unknown toolset; choose one of: ${TOOLSETS.join(', ')}.` };
  return rights as Right[];
}

/**
 * Records a person's consent: mints a Gatehouse credential for the one
 * workspace (I3) with the chosen rights, refused when the person does not
 * hold one of them now (I4), audited and listed on the tokens page; creates
 * the provider's grant with the credential's id as its id (rights granted,
 * the rest rejected), and finishes the interaction. Returns where the
 * browser resumes the authorization, or why nothing was recorded.
 */
export async function grantConsent(
  server: AuthorizationServer,
  credentials: Credentials<Right>,
  request: ConsentRequest,
  answer: ConsentAnswer,
  now: number,
): Promise<{ readonly returnTo: string } | ConsentRefusal> {
  const rights = checkAnswer(request, answer);
  if (!Array.isArray(rights)) return rights;
  const provider = await server.provider();
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
      expiresAt: now + GRANT_SECONDS * 1000,
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
  const grantId = await grant.save();
  interaction.result = { login: { accountId: answer.personId }, consent: { grantId } };
  await interaction.save((interaction.exp ?? epochSeconds(now) + 60) - epochSeconds(now));
  return { returnTo: interaction.returnTo };
}

/** Records a refusal: the client gets `access_denied`; nothing is minted. */
export async function denyConsent(
  server: AuthorizationServer,
  uid: string,
  now: number,
): Promise<string | undefined> {
  const provider = await server.provider();
  const interaction = await provider.Interaction.find(uid);
  if (!interaction) return undefined;
  interaction.result = { error: 'access_denied', error_description: 'The person declined the request.' };
  await interaction.save((interaction.exp ?? epochSeconds(now) + 60) - epochSeconds(now));
  return interaction.returnTo;
}
