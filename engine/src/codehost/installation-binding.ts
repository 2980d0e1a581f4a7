import { z } from 'zod';
import { recordAudit } from '../audit/record';
import { BadRequestError, ForbiddenError, NotFoundError, UpstreamError } from '../core/errors';
import type { Actor, IdentityCtx } from '../context/identity-context';
import { requireAppIdentity } from './app-identity';
import type { CodehostDeps, HostInstallation } from './client';
import type { BindingProof, CodehostIntegrationDoc, InstallationBindingDoc } from './codehost-store';
import { integrationPageUrl, MANIFEST_STATE_TTL_MS } from './manifest';

/**
 * Binding a GitHub App installation to exactly one org (docs/decisions.md "Installation
 * binding"; DESIGN.md: a tenant claims nothing on its word). An installation id names
 * repositories, so whoever holds it receives their pull-request diffs and writes on them: an org
 * binds one only through proof. Proofs: the App's setup redirect carrying an install state the
 * server issued to that org's admin (GitHub "About the setup URL"), checked with GitHub (the
 * installation exists for the org's app and was created after the state was issued, since GitHub
 * warns the redirect's installation_id can be spoofed); a platform administrator; or the signed
 * installation event of the org's own app, checked with GitHub the same way.
 */

/** The install state's lifetime: the manifest state's (analysis-api.md "Limits": 10 minutes). */
export const INSTALL_STATE_TTL_MINUTES = MANIFEST_STATE_TTL_MS / 60_000;

/** How far GitHub's clock may lag ours when an installation's creation is compared with its state's issue. */
const CLOCK_SKEW_MS = 2 * 60_000;

/** A GitHub installation id: digits (the API's integer, given as a string or a number). */
export const InstallationIdSchema = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().positive()]).transform(String);

/** POST /admin/organizations/{org_id}/integrations/codehost/installation body. */
export const BindInstallationSchema = z.object({ installation_id: InstallationIdSchema }).strict();

/** The audit actor of a binding no principal made (the code host's signed installation event). */
export const CODE_HOST_ACTOR: Actor = { userId: null, keyId: null, email: null, isSuperadmin: false, ip: null, requestId: null };

/** A binding as the API presents it. */
export function presentBinding(binding: InstallationBindingDoc) {
  return { org_id: binding.org_id, installation_id: binding.installation_id, proof: binding.proof, bound_at: binding.bound_at };
}

/**
 * Binds `installationId` to the org (replacing the org's previous one) and creates the org's
 * integration record if it has none; audited as `codehost.installation_bind` when it changes.
 * Throws ConflictError (409) when another org holds the installation (unique in the store, so
 * two racing binders get one winner). Callers have checked the proof.
 */
export async function bindInstallation(ictx: IdentityCtx, orgId: string, installationId: string, proof: BindingProof) {
  const store = ictx.engine.stores.codehost;
  const now = ictx.engine.now().toISOString();
  const before = await store.installationOf(orgId);
  const after = await store.bindInstallation(orgId, installationId, proof, now);
  await store.upsert(orgId, {}, now);
  if (before?.installation_id !== after.installation_id) {
    await recordAudit(ictx, {
      orgId,
      action: 'codehost.installation_bind',
      targetType: 'codehost_installation',
      targetId: installationId,
      before: before ? { installation_id: before.installation_id } : null,
      after: { installation_id: after.installation_id, proof },
    });
  }
  return presentBinding(after);
}

/**
 * POST /orgs/{org_id}/integrations/codehost with `installation_id`: naming the org's bound
 * installation again changes nothing; binding another takes a platform administrator (409 when
 * another org holds it). Anyone else gets ForbiddenError (403) and binds through the install link.
 */
export async function bindByConfigPost(ictx: IdentityCtx, orgId: string, installationId: string): Promise<void> {
  if ((await ictx.engine.stores.codehost.installationOf(orgId))?.installation_id === installationId) return;
  if (!ictx.actor.isSuperadmin) {
    throw new ForbiddenError(
      'An installation is bound through the GitHub App install link (POST .../integrations/codehost/install-link) or by a platform administrator, not by its id',
    );
  }
  await bindInstallation(ictx, orgId, installationId, 'superadmin');
}

/**
 * POST /admin/organizations/{org_id}/integrations/codehost/installation (superadmin): binds
 * without further proof. NotFoundError (404) for an unknown org, ConflictError (409) when
 * another org holds the installation. Returns the binding.
 */
export async function adminBindInstallation(ictx: IdentityCtx, orgId: string, installationId: string) {
  if (!(await ictx.engine.stores.orgs.get(orgId))) throw new NotFoundError('Organization not found');
  return bindInstallation(ictx, orgId, installationId, 'superadmin');
}

/** The app serving `doc`'s org, or NotImplementedError (501) when neither it nor the platform has one. */
function appFor(deps: CodehostDeps, doc: CodehostIntegrationDoc | null) {
  return requireAppIdentity(deps.analysis.ctx, deps.settings(), doc);
}

/**
 * The installation `installationId` of the app serving `doc`'s org, as GitHub reports it; null
 * when it is not one of that app's. Throws NotImplementedError (501) without an app and
 * UpstreamError (502) when GitHub cannot be asked.
 */
export async function installationOfApp(deps: CodehostDeps, doc: CodehostIntegrationDoc | null, installationId: string): Promise<HostInstallation | null> {
  const identity = appFor(deps, doc);
  let found: HostInstallation | null;
  try {
    found = await deps.clientFor(identity).installation(installationId);
  } catch (error) {
    deps.analysis.ctx.log.warn({ err: error, installation_id: installationId }, 'installation lookup failed');
    throw new UpstreamError('GitHub could not be asked about the installation');
  }
  return found && found.appId === identity.appId ? found : null;
}

/**
 * POST /orgs/{org_id}/integrations/codehost/install-link: the app's installation page carrying
 * `state` (GitHub echoes it to the App's setup URL). NotImplementedError (501) without an app,
 * UpstreamError (502) when GitHub cannot be asked for the app's page.
 */
export async function installLink(deps: CodehostDeps, orgId: string, state: string): Promise<string> {
  const identity = appFor(deps, await deps.analysis.ctx.stores.codehost.get(orgId));
  let htmlUrl: string;
  try {
    htmlUrl = (await deps.clientFor(identity).app()).htmlUrl;
  } catch (error) {
    deps.analysis.ctx.log.warn({ err: error, org_id: orgId }, 'app lookup failed');
    throw new UpstreamError("GitHub could not be asked for the app's page");
  }
  if (!/^https?:\/\//.test(htmlUrl)) throw new UpstreamError('GitHub answered no page for the app');
  return `${htmlUrl.replace(/\/+$/, '')}/installations/new?state=${encodeURIComponent(state)}`;
}

/**
 * GET /integrations/codehost/setup (the App's setup URL), after the caller verified the install
 * state issued at `stateIssuedAt` to this org and principal: binds `installationId` when GitHub
 * confirms it is an installation of the org's app created since then (an installation already
 * the org's binds again as is). BadRequestError (400) for a malformed id, an installation of
 * another app or one older than the state; ConflictError (409) when another org holds it; 501,
 * 502 as installationOfApp. Returns the dashboard URL to redirect to (307).
 */
export async function completeInstall(
  deps: CodehostDeps,
  ictx: IdentityCtx,
  orgId: string,
  installationId: string | undefined,
  stateIssuedAt: Date,
): Promise<string> {
  const parsed = InstallationIdSchema.safeParse(installationId ?? '');
  if (!parsed.success) throw new BadRequestError('installation_id is missing or not a GitHub installation id');
  const store = ictx.engine.stores.codehost;
  if ((await store.installationOf(orgId))?.installation_id !== parsed.data) {
    const found = await installationOfApp(deps, await store.get(orgId), parsed.data);
    if (!found) throw new BadRequestError(`Installation ${parsed.data} is not an installation of this organization's GitHub App`);
    if (!(Date.parse(found.createdAt) >= stateIssuedAt.getTime() - CLOCK_SKEW_MS)) {
      throw new BadRequestError(
        'This installation predates the install link: install the app through the link on the integration page, or ask a platform administrator to bind it',
      );
    }
    await bindInstallation(ictx, orgId, parsed.data, 'setup_url');
  }
  return integrationPageUrl(deps.settings(), `installed=${encodeURIComponent(parsed.data)}`);
}
