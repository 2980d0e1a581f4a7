import { z } from 'zod';
import { requireCatalogueModel, resolveApiKey } from '../analysis/analyze-service';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import type { IdentityCtx } from '../context/identity-context';
import { LLM_BACKENDS, type LlmBackend } from '../llm/types';
import type { CodehostIntegrationDoc, InstallationBindingDoc } from './codehost-store';
import { bindByConfigPost, InstallationIdSchema } from './installation-binding';

/**
 * The org's code-hosting integration config (analysis-api.md "Code-hosting integration",
 * "Code-hosting integration config"): POST/GET/DELETE /orgs/{org_id}/integrations/codehost and
 * DELETE .../codehost/app, and which app identity and webhook secret serve an org.
 */

/**
 * POST body. `installation_id` omitted keeps the bound installation; given, it must be the bound
 * one unless a platform administrator binds it (docs/decisions.md "Installation binding").
 */
export const CodehostConfigSchema = z
  .object({
    installation_id: InstallationIdSchema.optional(),
    llm_backend: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]),
    model: z.string().min(1).max(200),
    rule_type: z.string().min(1).max(100).nullable().default(null),
  })
  .strict();

/** The presented config with the org's bound installation: never the app's private key or webhook secret. */
export function presentIntegration(doc: CodehostIntegrationDoc, binding: InstallationBindingDoc | null) {
  const app = doc.codehost_app;
  return {
    installation_id: binding?.installation_id ?? null,
    llm_backend: doc.llm_backend,
    model: doc.model,
    rule_type: doc.rule_type,
    created_at: doc.created_at,
    codehost_app: app ? { app_id: app.app_id, app_slug: app.app_slug, html_url: app.html_url } : null,
  };
}

/** The org's presented config, or null when nothing is connected. */
async function presented(ctx: EngineContext, orgId: string) {
  const doc = await ctx.stores.codehost.get(orgId);
  return doc ? presentIntegration(doc, await ctx.stores.codehost.installationOf(orgId)) : null;
}

/**
 * POST: upserts the LLM config and, through bindByConfigPost, the installation. Throws
 * BadRequestError (400) when (backend, model) is not on the catalogue or the org has no stored
 * credential for the backend (webhook runs never use inline keys; ollama needs none),
 * ForbiddenError (403) for an installation id not bound to the org from anyone but a platform
 * administrator, ConflictError (409) when another org holds it. Returns the presented config.
 */
export async function putIntegration(ictx: IdentityCtx, orgId: string, input: z.infer<typeof CodehostConfigSchema>) {
  const ctx = ictx.engine;
  await requireCatalogueModel(ctx, input.llm_backend, input.model);
  await resolveApiKey(ctx, orgId, input.llm_backend, null);
  if (input.installation_id !== undefined) await bindByConfigPost(ictx, orgId, input.installation_id);
  await ctx.stores.codehost.upsert(orgId, { llm_backend: input.llm_backend, model: input.model, rule_type: input.rule_type }, ctx.now().toISOString());
  return (await presented(ctx, orgId))!;
}

/** GET: the presented config; NotFoundError (404) when nothing is connected. */
export async function getIntegration(ctx: EngineContext, orgId: string) {
  const config = await presented(ctx, orgId);
  if (!config) throw new NotFoundError('No code-hosting integration connected');
  return config;
}

/** DELETE: removes installation, LLM config and the org's own app credentials; 404 when none. */
export async function deleteIntegration(ctx: EngineContext, orgId: string) {
  if (!(await ctx.stores.codehost.delete(orgId))) throw new NotFoundError('No code-hosting integration connected');
  return { detail: 'Code-hosting integration removed' };
}

/** DELETE .../codehost/app: drops the org's own app credentials only; 404 when it has none. */
export async function deleteOwnApp(ctx: EngineContext, orgId: string) {
  const doc = await ctx.stores.codehost.get(orgId);
  if (!doc?.codehost_app) throw new NotFoundError('The organization has no app of its own');
  await ctx.stores.codehost.upsert(orgId, { codehost_app: null }, ctx.now().toISOString());
  return { detail: 'Custom app credentials removed' };
}
