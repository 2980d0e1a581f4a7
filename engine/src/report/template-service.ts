import { z } from 'zod';
import type { EngineContext } from '../context/engine-context';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import { BUILTIN_TEMPLATES, REPORT_FORMATS, TEMPLATE_LIMITS, type ReportFormat } from './formats';
import { validateUntrusted } from './template-sandbox';
import { sandboxLane, type LaneActor } from './template-sandbox-lane';
import type { ReportTemplateDoc } from './template-store';
import { renderNamespaceReport } from './namespace-report';

/** analysis-api.md "Report templates": CRUD, one default per org and format, seed-builtin. */

const FormatSchema = z.enum(REPORT_FORMATS as [ReportFormat, ...ReportFormat[]]);
const SourceSchema = z.string().min(1).max(TEMPLATE_LIMITS.maxSourceChars);

export const CreateTemplateSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    format: FormatSchema,
    source: SourceSchema,
    is_default: z.boolean().default(false),
  })
  .strict();
/** template_id and format never change: a body naming them is refused (422). */
export const UpdateTemplateSchema = z
  .object({
    name: z.string().trim().min(1).max(200),
    source: SourceSchema,
    is_default: z.boolean(),
  })
  .partial()
  .strict();
export const PreviewTemplateSchema = z.object({ source: SourceSchema, format: FormatSchema, namespace: z.string().min(1) }).strict();

/** analysis-api.md "Report template" presenter. */
export function presentTemplate(t: ReportTemplateDoc) {
  return {
    template_id: t.template_id,
    org_id: t.org_id,
    name: t.name,
    format: t.format,
    source: t.source,
    is_default: t.is_default,
    is_builtin_seed: t.is_builtin_seed,
    created_by: t.created_by,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

/** template_id: lower-case slug of the name. ValidationError (422) when nothing is left. */
export function templateSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  if (slug === '') throw new ValidationError('name: must contain at least one letter or digit');
  return slug;
}

function actor(ctx: IdentityCtx): string | null {
  return ctx.actor.userId ?? ctx.actor.keyId;
}

async function audit(ctx: IdentityCtx, orgId: string, action: string, id: string, before: ReportTemplateDoc | null, after: ReportTemplateDoc | null) {
  await recordAudit(ctx, {
    orgId,
    action,
    targetType: 'report_template',
    targetId: id,
    before: before && presentTemplate(before),
    after: after && presentTemplate(after),
  });
}

/**
 * POST .../report-templates: validates the source in the sandbox (ValidationError 422), stores
 * it with template_id = slug(name) (ConflictError 409 when taken) and, when is_default, clears
 * the org's other default of that format. Audited report_template.create.
 */
export async function createTemplate(ctx: IdentityCtx, orgId: string, input: z.infer<typeof CreateTemplateSchema>) {
  const doc: ReportTemplateDoc = {
    org_id: orgId,
    template_id: templateSlug(input.name),
    name: input.name,
    format: input.format,
    source: input.source,
    is_default: input.is_default,
    is_builtin_seed: false,
    created_by: actor(ctx),
    created_at: ctx.engine.now().toISOString(),
    updated_at: null,
  };
  await validateUntrusted(await sandboxLane(ctx.engine, orgId, ctx.actor), input.source, input.format);
  try {
    await ctx.engine.stores.templates.insert({ ...doc });
  } catch (error) {
    if (error instanceof ConflictError) throw new ConflictError(`A template with id '${doc.template_id}' already exists`);
    throw error;
  }
  if (doc.is_default) await ctx.engine.stores.templates.clearDefaults(orgId, doc.format, doc.template_id);
  await audit(ctx, orgId, 'report_template.create', doc.template_id, null, doc);
  return presentTemplate(doc);
}

/** GET .../report-templates with filters `format`, `is_default`: `{templates}`. */
export async function listTemplates(ctx: EngineContext, orgId: string, filter: { format?: ReportFormat; is_default?: boolean }) {
  return { templates: (await ctx.stores.templates.list(orgId, filter)).map(presentTemplate) };
}

async function requireTemplate(ctx: EngineContext, orgId: string, templateId: string): Promise<ReportTemplateDoc> {
  const doc = await ctx.stores.templates.get(orgId, templateId);
  if (!doc) throw new NotFoundError(`Template '${templateId}' not found`);
  return doc;
}

/** GET .../report-templates/{template_id}; NotFoundError (404). */
export async function getTemplate(ctx: EngineContext, orgId: string, templateId: string) {
  return presentTemplate(await requireTemplate(ctx, orgId, templateId));
}

/**
 * PATCH: partial (name, source, is_default); a new source is validated in the sandbox (422);
 * is_default true clears any other default of the same format. 404 unknown. Audited.
 */
export async function updateTemplate(ctx: IdentityCtx, orgId: string, templateId: string, input: z.infer<typeof UpdateTemplateSchema>) {
  const before = await requireTemplate(ctx.engine, orgId, templateId);
  if (input.source !== undefined) await validateUntrusted(await sandboxLane(ctx.engine, orgId, ctx.actor), input.source, before.format);
  const after = await ctx.engine.stores.templates.update(orgId, templateId, { ...input, updated_at: ctx.engine.now().toISOString() });
  if (!after) throw new NotFoundError(`Template '${templateId}' not found`);
  if (input.is_default) await ctx.engine.stores.templates.clearDefaults(orgId, after.format, templateId);
  await audit(ctx, orgId, 'report_template.update', templateId, before, after);
  return presentTemplate(after);
}

/** DELETE: 404 unknown; a deleted default falls back to the built-in. Audited. */
export async function deleteTemplate(ctx: IdentityCtx, orgId: string, templateId: string) {
  const before = await requireTemplate(ctx.engine, orgId, templateId);
  await ctx.engine.stores.templates.delete(orgId, templateId);
  await audit(ctx, orgId, 'report_template.delete', templateId, before, null);
  return { detail: `Template '${templateId}' deleted` };
}

/** POST .../seed-builtin: imports the three built-ins as non-default rows when missing; `{created}`. Audited. */
export async function seedBuiltinTemplates(ctx: IdentityCtx, orgId: string) {
  let created = 0;
  const now = ctx.engine.now().toISOString();
  for (const builtin of BUILTIN_TEMPLATES) {
    const templateId = templateSlug(builtin.name);
    if (await ctx.engine.stores.templates.get(orgId, templateId)) continue;
    try {
      await ctx.engine.stores.templates.insert({
        org_id: orgId,
        template_id: templateId,
        name: builtin.name,
        format: builtin.format,
        source: builtin.source,
        is_default: false,
        is_builtin_seed: true,
        created_by: actor(ctx),
        created_at: now,
        updated_at: null,
      });
      created += 1;
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  }
  await recordAudit(ctx, { orgId, action: 'report_template.seed_builtin', targetType: 'report_template', targetId: null, before: null, after: { created } });
  return { created };
}

/**
 * The template a report uses (analysis-api.md "Reports and report links"): `templateId` when
 * given (NotFoundError 404 when the org has none), else the org's default for `format`, else
 * the built-in (null). Returns `{format, source}`; template_id overrides `format`.
 */
export async function resolveTemplate(
  ctx: EngineContext,
  orgId: string,
  format: ReportFormat,
  templateId: string | null,
): Promise<{ format: ReportFormat; source: string | null; template_id: string | null }> {
  if (templateId) {
    const doc = await requireTemplate(ctx, orgId, templateId);
    return { format: doc.format, source: doc.source, template_id: doc.template_id };
  }
  const fallback = await ctx.stores.templates.defaultFor(orgId, format);
  return fallback ? { format, source: fallback.source, template_id: fallback.template_id } : { format, source: null, template_id: null };
}

/**
 * POST .../report-templates/preview: renders `source` over the namespace's current report in
 * the sandbox, in the lane of `actor` (the caller: template-sandbox-lane.ts); nothing is
 * persisted and no link is minted. `{content, content_type}`. 404 namespace without resources,
 * 422 render failure, 429 the caller's lane is full.
 */
export async function previewTemplate(ctx: EngineContext, orgId: string, input: z.infer<typeof PreviewTemplateSchema>, actor: LaneActor) {
  const members = await ctx.stores.resources.listMembers(orgId, input.namespace);
  if (members.length === 0) throw new NotFoundError(`Namespace '${input.namespace}' has no resources`);
  const rendered = await renderNamespaceReport(ctx, orgId, input.namespace, {
    format: input.format,
    includeSuppressed: false,
    templateSource: input.source,
    sandboxLane: await sandboxLane(ctx, orgId, actor),
  });
  return { content: rendered.content, content_type: rendered.contentType };
}
