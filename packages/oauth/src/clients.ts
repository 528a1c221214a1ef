import {
  type AuditStore,
  type AuthorizationStore,
  auditRow,
  MAX_AUTHORIZATION_LIST,
  type UnitOfWork,
} from '@gatehousejs/core';
import { type AuthorizationServer, forgettingGrants, internalsOf } from './server.js';

/**
 * A pre-registered public client (the MCP specification's "preregistration"):
 * a desktop host or a test harness the operator registers once, with the
 * redirect URIs it may use. It authenticates with nothing but PKCE.
 */
export interface StaticClient {
  /** Its `client_id`: 3 to 64 of `A-Z a-z 0-9 . _ -`, never a URL (URLs are metadata-document clients). */
  readonly id: string;
  /** The name the consent page shows. */
  readonly name: string;
  /** Every redirect URI it may use: all `https`, or all `http` on a loopback address (a native app's). */
  readonly redirectUris: readonly string[];
}

/** The model oidc-provider reads clients from. */
const CLIENT_MODEL = 'Client';
const CLIENT_ID = /^[A-Za-z0-9._-]{3,64}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_NAME = 100;
const MAX_REDIRECTS = 10;

/** Why a client cannot be registered, in words for the operator. */
export class ClientRegistrationError extends Error {
  override readonly name = 'ClientRegistrationError';
}

/** Whether every redirect URI is a loopback `http` one (a native client) rather than `https` (a web client). */
function applicationType(uris: readonly string[]): 'native' | 'web' {
  const kinds = new Set(
    uris.map((text) => {
      const url = URL.parse(text);
      if (!url || url.hash || text.includes('#'))
        throw new ClientRegistrationError(`${text} is not an absolute URL without a fragment.`);
      // never echoed: it may be a secret
      if (url.username || url.password)
        throw new ClientRegistrationError('A redirect URI must not carry a user name or password.');
      if (url.protocol === 'https:') return 'web';
      if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return 'native';
      throw new ClientRegistrationError(
        `${text} must be https, or http on a loopback address (127.0.0.1, [::1], localhost).`,
      );
    }),
  );
  if (kinds.size !== 1)
    throw new ClientRegistrationError(
      'Give either https redirect URIs (a web client) or loopback http ones (a native client), not both.',
    );
  return kinds.has('web') ? 'web' : 'native';
}

/**
 * The client's metadata as oidc-provider stores it: a public client
 * (`token_endpoint_auth_method: none`) with the authorization code and
 * refresh token grants. For a loopback redirect URI the provider accepts
 * any port (RFC 8252 §7.3), so `http://127.0.0.1/callback` serves a native
 * app whatever port it listens on.
 */
export function clientMetadata(client: StaticClient): Record<string, unknown> {
  if (!CLIENT_ID.test(client.id))
    throw new ClientRegistrationError('A client id is 3 to 64 of A-Z a-z 0-9 . _ - (not a URL).');
  const name = client.name.trim();
  if (!name || name.length > MAX_NAME)
    throw new ClientRegistrationError(`A client name is 1 to ${MAX_NAME} characters.`);
  const uris = [...new Set(client.redirectUris)];
  if (uris.length === 0 || uris.length > MAX_REDIRECTS)
    throw new ClientRegistrationError(`Give 1 to ${MAX_REDIRECTS} redirect URIs.`);
  return {
    client_id: client.id,
    client_name: name,
    redirect_uris: uris,
    application_type: applicationType(uris),
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
}

/** Who changes the registry: an operator's id and the channel (`cli`, `console`), for the audit rows. */
export interface RegistryActor {
  readonly actorId: string;
  readonly channel: string;
}

/** A registered client as {@link ClientRegistry.list} shows it. */
export interface RegisteredClient {
  readonly id: string;
  readonly name: string;
  readonly redirectUris: readonly string[];
}

/** The pre-registered clients of an authorization server, audited. */
export interface ClientRegistry {
  /**
   * Registers (or replaces) a client in the database, where every
   * replica's provider finds it, with an `oauth_client.add` audit row in the
   * same unit of work; resolves whether it replaced one. Bad metadata throws
   * a {@link ClientRegistrationError} in words for the operator.
   */
  save(client: StaticClient, by: RegistryActor): Promise<boolean>;
  /** Every client registered in the database (pre-registered and dynamically registered), by id; at most 1,000. */
  list(): Promise<readonly RegisteredClient[]>;
  /**
   * Removes a registered client and ends its access at once: every grant it
   * holds is revoked first (the credential service's audited `revoke`, and
   * the grant, its codes and its access and refresh tokens deleted), then
   * the client goes with its `oauth_client.remove` audit row, so it can
   * start no new authorization and redeem no code or refresh token.
   * Revoking first means an interrupted removal leaves the client registered
   * with fewer grants, never a missing client whose tokens still work;
   * running it again finishes it. Resolves how many grants were revoked, or
   * undefined when there is no such client.
   */
  remove(id: string, by: RegistryActor): Promise<{ readonly revokedGrants: number } | undefined>;
}

/** What {@link createClientRegistry} writes with. */
export interface ClientRegistryOptions<TRight extends string = string> {
  /** The server whose store holds the clients, and whose credential service revokes their grants. */
  readonly server: AuthorizationServer<TRight>;
  /** The audit store of the same database. */
  readonly audit: AuditStore;
  /** The stores' unit of work on the same database: a change and its audit row commit together. */
  readonly unitOfWork: UnitOfWork;
}

/** The ids of the grants `clientId` holds (oidc-provider keeps the client in each Grant payload). */
async function grantsOf(store: AuthorizationStore, clientId: string, now: number): Promise<string[]> {
  const grants = await store.list('Grant', now, MAX_AUTHORIZATION_LIST);
  return grants
    .filter((grant) => (JSON.parse(grant.payload) as { clientId?: unknown }).clientId === clientId)
    .map((grant) => grant.id);
}

/**
 * The registry of pre-registered public clients (the MCP specification's
 * "preregistration": a desktop host or a test harness the operator
 * registers once with its redirect URIs; it authenticates with PKCE only),
 * for a product's CLI or admin page.
 */
export function createClientRegistry<TRight extends string>(
  options: ClientRegistryOptions<TRight>,
): ClientRegistry {
  const { audit, unitOfWork, server } = options;
  const { store, clock, credentials } = internalsOf(server as AuthorizationServer<string>);
  const now = () => clock().getTime();
  const revoking = forgettingGrants(server as AuthorizationServer<string>, credentials);
  const audited = <T>(
    action: string,
    clientId: string,
    by: RegistryActor,
    change: (unit: unknown) => Promise<T>,
  ) =>
    unitOfWork.run(async (unit) => {
      const result = await change(unit);
      const entry = {
        channel: by.channel,
        action,
        outcome: 'ok' as const,
        actorId: by.actorId,
        objectIds: [clientId],
      };
      await audit.append(auditRow(entry, now()), unit);
      return result;
    });
  return Object.freeze({
    async save(client: StaticClient, by: RegistryActor) {
      const payload = JSON.stringify(clientMetadata(client));
      return audited('oauth_client.add', client.id, by, (unit) =>
        store.save(CLIENT_MODEL, client.id, { payload }, unit),
      );
    },
    async list() {
      const records = await store.list(CLIENT_MODEL, now(), MAX_AUTHORIZATION_LIST);
      return records.map((record) => {
        const metadata = JSON.parse(record.payload) as { client_name?: unknown; redirect_uris?: unknown };
        return {
          id: record.id,
          name: typeof metadata.client_name === 'string' ? metadata.client_name : '',
          redirectUris: Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris.map(String) : [],
        };
      });
    },
    async remove(id: string, by: RegistryActor) {
      if (!(await store.find(CLIENT_MODEL, 'id', id, now()))) return undefined;
      let revokedGrants = 0;
      for (const grantId of await grantsOf(store, id, now()))
        if (await revoking.revoke(grantId, by)) revokedGrants++;
      await audited('oauth_client.remove', id, by, (unit) => store.destroy(CLIENT_MODEL, id, unit));
      return { revokedGrants };
    },
  });
}
