import { z } from 'zod';
import { requireCatalogueModel, resolveApiKey } from '../analysis/analyze-service';
import type { EngineContext } from '../context';
import { NotFoundError } from '../errors';
import { LLM_BACKENDS, type LlmBackend } from '../llm/types';
import type { AppIdentity, CodehostSettings } from './client';
import type { CodehostIntegrationDoc } from './codehost-store';

/**
 * The org's code-hosting integration config (analysis-api.md "Code-hosting integration",
 * "Code-hosting integration config"): POST/GET/DELETE /orgs/{org_id}/integrations/codehost and
 * DELETE .../codehost/app, and which app identity and webhook secret serve an org.
 */

/** POST body. `installation_id` omitted keeps the stored value. */
export const CodehostConfigSchema = z.object({
  installation_id: z.union([z.string().regex(/^\d{1,20}$/), z.number().int().positive()]).transform(String).optional(),
  llm_backend: z.enum(LLM_BACKENDS as [LlmBackend, ...LlmBackend[]]),
  model: z.string().min(1).max(200),
  rule_type: z.string().min(1).max(100).nullable().default(null),
}).strict();

/** The presented config: never the app's private key or webhook secret. */
export function presentIntegration(doc: CodehostIntegrationDoc) {
  const app = doc.codehost_app;
  return {
    installation_id: doc.installation_id, llm_backend: doc.llm_backend, model: doc.model, rule_type: doc.rule_type, created_at: doc.created_at,
    codehost_app: app ? { app_id: app.app_id, app_slug: app.app_slug, html_url: app.html_url } : null,
  };
}

/**
 * POST: upserts the installation and LLM config. Throws BadRequestError (400) when (backend,
 * model) is not on the catalogue or the org has no stored credential for the backend (webhook
 * runs never use inline keys; ollama needs none). Returns the presented config.
 */
export async function putIntegration(ctx: EngineContext, orgId: string, input: z.infer<typeof CodehostConfigSchema>) {
  await requireCatalogueModel(ctx, input.llm_backend, input.model);
  await resolveApiKey(ctx, orgId, input.llm_backend, null);
  const fields: Partial<CodehostIntegrationDoc> = { llm_backend: input.llm_backend, model: input.model, rule_type: input.rule_type };
  if (input.installation_id !== undefined) fields.installation_id = input.installation_id;
  return presentIntegration(await ctx.stores.codehost.upsert(orgId, fields, ctx.now().toISOString()));
}

/** GET: the presented config; NotFoundError (404) when nothing is connected. */
export async function getIntegration(ctx: EngineContext, orgId: string) {
  const doc = await ctx.stores.codehost.get(orgId);
  if (!doc) throw new NotFoundError('No code-hosting integration connected');
  return presentIntegration(doc);
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

/** The app that mints tokens for an org: its own app when it has one, else the platform app; null when neither is configured. */
export function appIdentityFor(ctx: EngineContext, settings: CodehostSettings, doc: CodehostIntegrationDoc | null): AppIdentity | null {
  if (doc?.codehost_app) return { appId: doc.codehost_app.app_id, privateKey: ctx.stores.box.open(doc.codehost_app.private_key_sealed) };
  if (settings.app_id && settings.private_key) return { appId: settings.app_id, privateKey: settings.private_key };
  return null;
}

/** The secret a webhook for `doc` is verified with: its own app's, else the platform's; null when neither exists. */
export function webhookSecretFor(ctx: EngineContext, settings: CodehostSettings, doc: CodehostIntegrationDoc | null): string | null {
  if (doc?.codehost_app) return ctx.stores.box.open(doc.codehost_app.webhook_secret_sealed);
  return settings.webhook_secret;
}
