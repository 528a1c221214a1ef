import {
  type AuditStore,
  type AuthDecision,
  type Authenticate,
  auditRow,
  ConfigurationError,
  type Connection,
  type CredentialRecord,
  type CredentialStore,
  sha256Hex,
  ToolError,
  type UnitOfWork,
} from '@gatehousejs/core';
import { ulid } from 'ulid';
import { audited } from './internal/audited.js';
import { connectionFor, type TenantChoice } from './internal/connectionFor.js';
import { constantTimeEqual } from './internal/constantTime.js';
import type { PeopleSource } from './people.js';

/** Options of {@link createCredentials}. */
export interface CredentialsOptions<TRight extends string> {
  readonly store: CredentialStore;
  readonly audit: AuditStore;
  /** The host's people data: live rights and the active flag (I4). */
  readonly people: PeopleSource<TRight>;
  /** The rights vocabulary; granted rights must come from it. */
  readonly rights: readonly TRight[];
  /** Recognisable token prefix; default `ghmcp_`. Letters, digits and `_` only. */
  readonly prefix?: string;
  /** The clock for creation, expiry and audit times; default the system time. Tests pin it. */
  readonly clock?: () => Date;
  /**
   * The host's unit of work (`stores.unitOfWork`): a credential's creation or
   * revocation and its audit row then commit together. Without it they
   * commit one after the other, and a crash between them leaves a change
   * without its row.
   */
  readonly unitOfWork?: UnitOfWork;
}

/** What {@link Credentials.mint} needs. */
export interface MintRequest<TRight extends string> {
  /** One tenant for most credentials; several only when the transport names the tenant (I3). */
  readonly tenantIds: readonly string[];
  readonly creatorId: string;
  readonly rights: readonly TRight[];
  readonly clientLabel: string;
  readonly expiresAt?: number | null;
  readonly toolset?: string | null;
  /** The channel the creation came through, for the audit row (`admin`, `cli`, `api`). */
  readonly channel?: string;
}

/** The credential functions of a host: mint, revoke, authenticate, and the API-route refusal. */
export interface Credentials<TRight extends string> {
  /**
   * Creates an MCP token and returns it once; only its SHA-256 is stored.
   * Refuses (ToolError `missing_right`, naming them) rights the creator does
   * not hold right now in every tenant (I4). Writes one audit row.
   */
  mint(
    request: MintRequest<TRight>,
  ): Promise<{ readonly token: string; readonly credential: CredentialRecord }>;
  /** Revokes a credential; writes one audit row when it changed anything. */
  revoke(id: string, by: { readonly actorId: string; readonly channel?: string }): Promise<boolean>;
  /** The MCP endpoint's authenticator: 401 for anything but a live MCP token; 403 for a foreign tenant. */
  readonly authenticate: Authenticate<TRight>;
  /** True when a header or cookie value holds an MCP token: product API routes refuse it (I5). */
  isMcpToken(value: string | null | undefined): boolean;
  /**
   * The connection of a credential by id in one of its tenants, as it stands
   * now (the same checks as `authenticate`: not revoked, not expired, creator
   * active, rights capped by the creator's current rights), or `undefined`.
   * Core's approval by a person runs the approved action with it.
   */
  connectionById(id: string, tenantId: string): Promise<Connection<TRight> | undefined>;
}

const TOKEN_BYTES = 32;

function randomToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(TOKEN_BYTES));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return prefix + btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function checkMint<TRight extends string>(
  request: MintRequest<TRight>,
  vocabulary: ReadonlySet<string>,
  now: number,
) {
  const bad = (message: string) =>
    new ToolError({ code: 'invalid_arguments', message, fix: 'Correct the request.' });
  if (request.tenantIds.length === 0 || request.tenantIds.some((t) => !t))
    throw bad('A credential needs at least one tenant.');
  if (!request.creatorId) throw bad('A credential needs its creator.');
  if (!request.clientLabel.trim() || request.clientLabel.length > 100)
    throw bad('The client label must be 1–100 characters.');
  if (request.expiresAt != null && request.expiresAt <= now) throw bad('The expiry must be in the future.');
  const unknown = request.rights.filter((r) => !vocabulary.has(r));
  if (unknown.length > 0) throw bad(`Unknown rights: ${unknown.join(', ')}.`);
}

/**
 * MCP credentials (I4, I5): their own token type with a recognisable prefix
 * and 256 bits of randomness, stored hashed, shown once, compared in constant
 * time, capped at creation, checked live on every request.
 *
 * @example
 * const credentials = createCredentials({ store, audit, people, rights: RIGHTS });
 * const server = gh.createServer({ ..., authenticate: credentials.authenticate });
 */
export function createCredentials<TRight extends string>(
  options: CredentialsOptions<TRight>,
): Credentials<TRight> {
  const prefix = options.prefix ?? 'ghmcp_';
  if (!/^[A-Za-z][A-Za-z0-9_]{1,15}$/.test(prefix)) {
    throw new ConfigurationError(
      'createCredentials: prefix must be 2–16 letters, digits or "_", starting with a letter.',
    );
  }
  const clock = options.clock ?? (() => new Date());
  const vocabulary = new Set<string>(options.rights);
  const { store, audit, people } = options;
  const refuse = (status: 401 | 403, reason: string): AuthDecision<TRight> => ({ ok: false, status, reason });

  const isMcpToken = (value: string | null | undefined) =>
    typeof value === 'string' &&
    value
      .replace(/^Bearer\s+/i, '')
      .trim()
      .startsWith(prefix);

  const credentials: Credentials<TRight> = {
    isMcpToken,
    async mint(request) {
      const now = clock().getTime();
      checkMint(request, vocabulary, now);
      for (const tenantId of request.tenantIds) {
        const standing = await people.current(tenantId, request.creatorId);
        const held = new Set<string>(standing?.active ? standing.rights : []);
        const refused = request.rights.filter((r) => !held.has(r));
        if (refused.length > 0) {
          throw new ToolError({
            code: 'missing_right',
            message: `The creator does not hold ${refused.join(', ')} in ${tenantId}, so the token cannot grant ${refused.length > 1 ? 'them' : 'it'}.`,
            fix: 'Grant only rights the creator holds now.',
            details: { refused_rights: refused, tenant: tenantId },
          });
        }
      }
      const token = randomToken(prefix);
      const credential: CredentialRecord = {
        id: `cred_${ulid(now)}`,
        tokenHash: sha256Hex(token),
        tenantIds: [...request.tenantIds],
        creatorId: request.creatorId,
        rights: [...new Set(request.rights)],
        clientLabel: request.clientLabel.trim(),
        toolset: request.toolset ?? null,
        createdAt: now,
        expiresAt: request.expiresAt ?? null,
        revokedAt: null,
      };
      await audited(options.unitOfWork, async (unit) => {
        await store.insert(credential, unit);
        await audit.append(
          auditRow(
            {
              channel: request.channel ?? 'admin',
              action: 'token.create',
              outcome: 'ok',
              tenantId: credential.tenantIds[0] ?? null,
              actorId: request.creatorId,
              objectIds: [credential.id],
              note: `rights: ${credential.rights.join(' ') || '(none)'}; client: ${credential.clientLabel}`,
            },
            now,
          ),
          unit,
        );
      });
      return { token, credential };
    },
    async revoke(id, by) {
      const now = clock().getTime();
      const record = await store.findById(id);
      return audited(options.unitOfWork, async (unit) => {
        const changed = await store.revoke(id, now, unit);
        if (!changed) return false;
        await audit.append(
          auditRow(
            {
              channel: by.channel ?? 'admin',
              action: 'token.revoke',
              outcome: 'ok',
              tenantId: record?.tenantIds[0] ?? null,
              actorId: by.actorId,
              objectIds: [id],
            },
            now,
          ),
          unit,
        );
        return true;
      });
    },
    async connectionById(id, tenantId) {
      const record = await store.findById(id);
      if (!record || record.revokedAt !== null || !record.tenantIds.includes(tenantId)) return undefined;
      if (record.expiresAt !== null && record.expiresAt <= clock().getTime()) return undefined;
      const standing = await people.current(tenantId, record.creatorId);
      if (!standing?.active) return undefined;
      const decision = connectionFor<TRight>(record, tenantId, standing.rights);
      return decision.ok ? decision.connection : undefined;
    },
    async authenticate({ token, transportTenant }) {
      if (!isMcpToken(token)) return refuse(401, 'This endpoint accepts MCP tokens only.');
      const hash = sha256Hex(token);
      const record = await store.findByTokenHash(hash);
      if (!record || !constantTimeEqual(record.tokenHash, hash))
        return refuse(401, 'The token is not valid.');
      const now = clock().getTime();
      if (record.revokedAt !== null) return refuse(401, 'The token was revoked.');
      if (record.expiresAt !== null && record.expiresAt <= now) return refuse(401, 'The token expired.');
      const tenant: TenantChoice = chooseTenant(record.tenantIds, transportTenant);
      if (!tenant.ok) return refuse(403, tenant.reason);
      const standing = await people.current(tenant.tenantId, record.creatorId);
      if (!standing?.active)
        return refuse(401, 'The person who created this token is no longer active here.');
      return connectionFor<TRight>(record, tenant.tenantId, standing.rights);
    },
  };
  return Object.freeze(credentials);
}

/** The tenant a request acts in: the credential's only tenant, or the one the transport names (I3). */
export function chooseTenant(
  tenantIds: readonly string[],
  transportTenant: string | undefined,
): TenantChoice {
  if (transportTenant !== undefined) {
    return tenantIds.includes(transportTenant)
      ? { ok: true, tenantId: transportTenant }
      : { ok: false, reason: 'This token does not serve the tenant named in the request.' };
  }
  if (tenantIds.length === 1) return { ok: true, tenantId: tenantIds[0]! };
  return { ok: false, reason: 'This token serves several tenants; name one in the URL or header.' };
}
