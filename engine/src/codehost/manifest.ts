import { createHash, randomBytes } from 'node:crypto';
import { BadRequestError, NotImplementedError } from '../core/errors';
import type { CodehostDeps, CodehostSettings, ManifestConversion } from './client';

/**
 * The org's own GitHub App through the manifest flow (analysis-api.md "Code-hosting
 * integration"; GitHub "Registering a GitHub App from a manifest"): a single-use state valid
 * 10 minutes, the manifest the browser POSTs to GitHub, and the callback that exchanges the
 * code for the new app's id, private key and webhook secret (stored sealed, per org).
 */

/** analysis-api.md "Limits": manifest state, single use, 10 minutes. */
export const MANIFEST_STATE_TTL_MS = 10 * 60_000;

/**
 * The dashboard's integration page (`{dashboard_base_url or public_base_url}/integrations/codehost`)
 * with `query`: where the manifest callback and the setup redirect send the browser back to.
 */
export function integrationPageUrl(settings: CodehostSettings, query: string): string {
  const base = (settings.dashboard_base_url ?? settings.public_base_url ?? '').replace(/\/+$/, '');
  return `${base}/integrations/codehost?${query}`;
}

function stateDigest(state: string): string {
  return createHash('sha256').update(state, 'utf8').digest('hex');
}

/**
 * POST /orgs/{org_id}/integrations/codehost/manifest: `{manifest, state, target_url}`.
 * Throws NotImplementedError (501) when `server.public_base_url` is unset (GitHub must reach the
 * webhook and the callback). Only the state's SHA-256 is stored.
 */
export async function createManifest(deps: CodehostDeps, orgId: string) {
  const { ctx } = deps.analysis;
  const settings = deps.settings();
  if (!settings.public_base_url) throw new NotImplementedError('server.public_base_url is not set: GitHub could not reach this server');
  const base = settings.public_base_url.replace(/\/+$/, '');
  const state = randomBytes(32).toString('base64url');
  await ctx.stores.codehost.insertState({
    state_sha256: stateDigest(state),
    org_id: orgId,
    expires_at: new Date(ctx.now().getTime() + MANIFEST_STATE_TTL_MS).toISOString(),
  });
  const manifest = {
    name: `Planwarden ${orgId}`.slice(0, 34),
    url: base,
    hook_attributes: { url: `${base}/api/v1/integrations/codehost/webhook`, active: true },
    redirect_url: `${base}/api/v1/integrations/codehost/manifest/callback`,
    public: false,
    default_permissions: { pull_requests: 'read', contents: 'read', issues: 'write', statuses: 'write', metadata: 'read' },
    default_events: ['pull_request', 'issue_comment'],
  };
  const webBase = settings.web_base_url.replace(/\/+$/, '');
  return { manifest, state, target_url: `${webBase}/settings/apps/new?state=${encodeURIComponent(state)}` };
}

/**
 * GET /integrations/codehost/manifest/callback?code&state: consumes the state (BadRequestError
 * 400 when unknown, expired or used), exchanges the code (400 when GitHub refuses it) and stores
 * the app sealed for the state's org, unbinding the org's installation (the new app's own binds
 * on its installation event).
 * Returns the URL to redirect the browser to (307).
 */
export async function completeManifest(deps: CodehostDeps, code: string | undefined, state: string | undefined): Promise<string> {
  const { ctx } = deps.analysis;
  if (!code || !state) throw new BadRequestError('code and state are required');
  const taken = await ctx.stores.codehost.takeState(stateDigest(state), ctx.now().toISOString());
  if (!taken) throw new BadRequestError('Invalid, expired or already used state');
  let app: ManifestConversion;
  try {
    app = await deps.convertManifest(code);
  } catch (error) {
    ctx.log.warn({ err: error, org_id: taken.org_id }, 'manifest code exchange failed');
    throw new BadRequestError('The code could not be exchanged with the code host');
  }
  const box = ctx.stores.box;
  // The new app's installations are its own: one of the previous app no longer serves the org.
  const bound = await ctx.stores.codehost.installationOf(taken.org_id);
  if (bound) await ctx.stores.codehost.unbindInstallation(taken.org_id, bound.installation_id);
  await ctx.stores.codehost.upsert(
    taken.org_id,
    {
      codehost_app: {
        app_id: app.id,
        app_slug: app.slug,
        html_url: app.html_url,
        private_key_sealed: box.seal(app.pem),
        webhook_secret_sealed: box.seal(app.webhook_secret),
      },
    },
    ctx.now().toISOString(),
  );
  return integrationPageUrl(deps.settings(), 'app_created=1');
}
