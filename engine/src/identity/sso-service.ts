import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import { assertEgressAllowed, STRICT_EGRESS } from '../net/egress';
import { isoNow, type IdentityCtx } from '../context/identity-context';
import { assertDomainsFree, syncDomainStatuses, type DomainStatus } from './sso-domains';
import type { SsoConnectionDoc } from './sso-store';
import type { OrgRole } from './types';

/** The body of POST /orgs/{org_id}/sso (identity-api.md "SSO connection"); PATCH takes any subset. */
export interface SsoConnectionInput {
  display_name: string;
  issuer: string;
  client_id: string;
  client_secret?: string | null;
  default_role?: Exclude<OrgRole, 'owner'>;
  allowed_domains?: string[] | null;
  enabled?: boolean;
}

/**
 * Presenter: the connection without its secret (`client_secret_set` instead), and `domains`:
 * each allowed domain's verification (sso-domains.ts DomainStatus; docs/decisions.md "SSO domain
 * verification").
 */
export function presentSsoConnection(c: SsoConnectionDoc, domains: readonly DomainStatus[]) {
  return {
    provider: 'oidc',
    display_name: c.display_name,
    issuer: c.issuer,
    client_id: c.client_id,
    client_secret_set: c.client_secret_sealed !== null,
    default_role: c.default_role,
    allowed_domains: c.allowed_domains,
    enabled: c.enabled,
    created_at: c.created_at,
    updated_at: c.updated_at,
    domains: [...domains],
  };
}

/** The presented connection with its domains' statuses (claims synced from allowed_domains). */
export async function presentWithDomains(ctx: IdentityCtx, c: SsoConnectionDoc) {
  return presentSsoConnection(c, await syncDomainStatuses(ctx, c));
}

/** Lower-cased, de-duplicated domains (null stays null: any domain). */
function normaliseDomains(domains: readonly string[] | null | undefined): string[] | null {
  if (domains === null || domains === undefined) return null;
  return [...new Set(domains.map((d) => d.trim().toLowerCase().replace(/^@/, '')))];
}

/**
 * The issuer must be a URL the egress policy lets us reach (it is tenant-set: net/egress.ts),
 * https unless the operator allowlisted its host (a test or in-house provider on http).
 * ValidationError (422) otherwise.
 */
function checkIssuer(ctx: IdentityCtx, issuer: string): string {
  const policy = ctx.engine.egress ?? STRICT_EGRESS;
  const url = assertEgressAllowed(issuer, policy);
  if (url.protocol !== 'https:' && !policy.allowlist.includes(url.hostname.replace(/^\[|\]$/g, ''))) {
    throw new ValidationError('issuer: must be an https URL');
  }
  return issuer.replace(/\/+$/, '');
}

async function requireConnection(ctx: IdentityCtx, orgId: string): Promise<SsoConnectionDoc> {
  const found = await ctx.engine.stores.sso.get(orgId);
  if (!found) throw new NotFoundError('No SSO connection is configured');
  return found;
}

/**
 * POST /orgs/{org_id}/sso: creates the org's connection, sealing client_secret (SecretBox) and
 * claiming allowed_domains, each pending until verified (sso-domains.ts). 409 a connection exists
 * or another org holds a domain verified; 422 issuer refused. Audited sso.create. Returns the
 * presented connection.
 */
export async function createSsoConnection(ctx: IdentityCtx, orgId: string, input: SsoConnectionInput) {
  const { stores } = ctx.engine;
  if (await stores.sso.get(orgId)) throw new ConflictError('An SSO connection already exists for this organization');
  const now = isoNow(ctx);
  const doc: SsoConnectionDoc = {
    org_id: orgId,
    display_name: input.display_name,
    issuer: checkIssuer(ctx, input.issuer),
    client_id: input.client_id,
    client_secret_sealed: input.client_secret ? stores.box.seal(input.client_secret) : null,
    default_role: input.default_role ?? 'member',
    allowed_domains: normaliseDomains(input.allowed_domains),
    enabled: input.enabled ?? true,
    created_at: now,
    updated_at: now,
  };
  await assertDomainsFree(ctx, orgId, doc.allowed_domains ?? []);
  try {
    await stores.sso.insert(doc);
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError('An SSO connection already exists for this organization');
    throw error;
  }
  const presented = await presentWithDomains(ctx, doc);
  await recordAudit(ctx, { orgId, action: 'sso.create', targetType: 'sso_connection', targetId: orgId, before: null, after: presented });
  return presented;
}

/** GET /orgs/{org_id}/sso: the presented connection; 404 none. */
export async function getSsoConnection(ctx: IdentityCtx, orgId: string) {
  return presentWithDomains(ctx, await requireConnection(ctx, orgId));
}

/**
 * PATCH /orgs/{org_id}/sso: any subset; client_secret replaces the stored one only when sent
 * (null clears it). A domain dropped from allowed_domains loses its claim and verification; a
 * new one starts pending. 404 none; 409 another org holds a domain verified; 422 issuer refused.
 * Audited sso.update with before/after (secret-free).
 */
export async function updateSsoConnection(ctx: IdentityCtx, orgId: string, input: Partial<SsoConnectionInput>) {
  const { stores } = ctx.engine;
  const before = await presentWithDomains(ctx, await requireConnection(ctx, orgId));
  const changes: Partial<SsoConnectionDoc> = { updated_at: isoNow(ctx) };
  if (input.display_name !== undefined) changes.display_name = input.display_name;
  if (input.issuer !== undefined) changes.issuer = checkIssuer(ctx, input.issuer);
  if (input.client_id !== undefined) changes.client_id = input.client_id;
  if (input.client_secret !== undefined) changes.client_secret_sealed = input.client_secret ? stores.box.seal(input.client_secret) : null;
  if (input.default_role !== undefined) changes.default_role = input.default_role;
  if (input.enabled !== undefined) changes.enabled = input.enabled;
  if (input.allowed_domains !== undefined) {
    changes.allowed_domains = normaliseDomains(input.allowed_domains);
    await assertDomainsFree(ctx, orgId, changes.allowed_domains ?? []);
  }
  const updated = await stores.sso.update(orgId, changes);
  if (!updated) throw new NotFoundError('No SSO connection is configured');
  const after = await presentWithDomains(ctx, updated);
  await recordAudit(ctx, { orgId, action: 'sso.update', targetType: 'sso_connection', targetId: orgId, before, after });
  return after;
}

/** DELETE /orgs/{org_id}/sso: disconnects (claims and verified domains released); 404 none. Audited sso.delete. */
export async function deleteSsoConnection(ctx: IdentityCtx, orgId: string): Promise<void> {
  const before = await presentWithDomains(ctx, await requireConnection(ctx, orgId));
  await ctx.engine.stores.sso.remove(orgId);
  await recordAudit(ctx, { orgId, action: 'sso.delete', targetType: 'sso_connection', targetId: orgId, before, after: null });
}

/** The e-mail's domain, lower-cased ('' without an @). */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf('@');
  return at < 0 ? '' : email.slice(at + 1).toLowerCase();
}

/**
 * The enabled connection of the org that holds the e-mail's domain *verified*, or null
 * (POST /auth/sso/discover, and social sign-in's redirect to an org's SSO). A pending claim
 * routes nobody: otherwise any org could pull a domain's users into its own provider.
 */
export async function connectionForEmail(ctx: IdentityCtx, email: string): Promise<SsoConnectionDoc | null> {
  const domain = emailDomain(email);
  const orgId = domain ? await ctx.engine.stores.sso.unsafeVerifiedOrgForDomain(domain) : null;
  const connection = orgId ? await ctx.engine.stores.sso.get(orgId) : null;
  return connection?.enabled ? connection : null;
}

/** POST /auth/sso/discover: `{org_id, display_name}`; NotFoundError when no org holds the e-mail's domain verified. */
export async function discoverSso(ctx: IdentityCtx, email: string) {
  const connection = await connectionForEmail(ctx, email);
  if (!connection) throw new NotFoundError('No SSO connection for this e-mail domain');
  return { org_id: connection.org_id, display_name: connection.display_name };
}

/** The org's enabled connection with its secret opened; NotFoundError when none or disabled. */
export async function enabledConnection(ctx: IdentityCtx, orgId: string): Promise<{ connection: SsoConnectionDoc; clientSecret: string | null }> {
  const connection = await ctx.engine.stores.sso.get(orgId);
  if (!connection?.enabled) throw new NotFoundError('No enabled SSO connection for this organization');
  const sealed = connection.client_secret_sealed;
  return { connection, clientSecret: sealed ? ctx.engine.stores.box.open(sealed) : null };
}

/** Whether the org has a configured and enabled connection (admin summaries' `sso_enabled`). */
export async function ssoEnabled(ctx: IdentityCtx, orgId: string): Promise<boolean> {
  return (await ctx.engine.stores.sso.get(orgId))?.enabled ?? false;
}
