import { createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { renderNamespaceReport, type ReportFormat } from '../analysis/namespace-report';
import { assertNamespace } from '../analysis/ingest-service';
import type { EngineContext } from '../context';
import { NotFoundError } from '../errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../identity/context';
import { resolveTemplate } from './template-service';

/**
 * GET /{namespace}/report with template resolution, public report links (markdown_light mints
 * one) and their TTL (analysis-api.md "Reports and report links").
 */

export const ReportLinkTtlSchema = z.object({ ttl_hours: z.number().int().min(1).max(720) }).strict();

/** SHA-256 hex of a link token: the only form stored. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** What a public link token looks like (43 base64url characters); anything else is simply unknown. */
export const REPORT_TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Mints a link to the namespace's HTML report: 256 random bits, base64url; only its SHA-256
 * is stored, expiring after the org's `report_link_ttl_hours` (default 24). Returns the token.
 */
export async function mintReportLink(ctx: EngineContext, orgId: string, namespace: string): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const org = await ctx.stores.orgs.get(orgId);
  const ttlHours = org?.report_link_ttl_hours ?? 24;
  const now = ctx.now();
  await ctx.stores.reportLinks.insert({
    org_id: orgId, token_sha256: tokenDigest(token), namespace, template_id: null, include_suppressed: false,
    created_at: now.toISOString(), expires_at: new Date(now.getTime() + ttlHours * 3_600_000).toISOString(),
  });
  return token;
}

export interface OrgReportOptions {
  readonly format: ReportFormat;
  readonly templateId: string | null;
  readonly includeSuppressed: boolean;
  /** Absolute or root-relative prefix a token is appended to, e.g. `https://host/api/v1/reports/`. */
  readonly linkBase: string;
  readonly dashboardBaseUrl: string | null;
}

/**
 * GET /{namespace}/report: template_id (404 unknown in the org) overrides `format`; else the
 * org default template of the format; else the built-in. A markdown_light report mints a
 * public link exposed to the template as `report_html_url` (and `dashboard_url` when the
 * dashboard base is configured). 404 unknown namespace, 422 render failure.
 * Returns `{content, contentType, format}`.
 */
export async function renderOrgReport(ctx: EngineContext, orgId: string, namespace: string, options: OrgReportOptions) {
  assertNamespace(namespace);
  const template = await resolveTemplate(ctx, orgId, options.format, options.templateId);
  if (!(await ctx.stores.resources.namespaceExists(orgId, namespace))) throw new NotFoundError(`Namespace '${namespace}' not found`);
  const reportHtmlUrl = template.format === 'markdown_light' ? `${options.linkBase}${await mintReportLink(ctx, orgId, namespace)}` : null;
  const dashboardUrl = options.dashboardBaseUrl ? `${options.dashboardBaseUrl.replace(/\/+$/, '')}/findings?namespace=${encodeURIComponent(namespace)}` : null;
  const rendered = await renderNamespaceReport(ctx, orgId, namespace, {
    format: template.format, includeSuppressed: options.includeSuppressed, templateSource: template.source, reportHtmlUrl, dashboardUrl,
  });
  return { ...rendered, format: template.format };
}

/**
 * GET /reports/{token} (public): the HTML report of the link's namespace, rendered now with
 * the org's default html template or the built-in. Unknown, malformed and expired tokens
 * all throw the same NotFoundError (404).
 */
export async function openReportLink(ctx: EngineContext, token: string) {
  const gone = new NotFoundError('Report not found');
  if (!REPORT_TOKEN_RE.test(token)) throw gone;
  const link = await ctx.stores.reportLinks.unsafeByTokenHash(tokenDigest(token));
  if (!link || link.expires_at <= ctx.now().toISOString()) throw gone;
  const template = await resolveTemplate(ctx, link.org_id, 'html', null);
  try {
    return await renderNamespaceReport(ctx, link.org_id, link.namespace, { format: 'html', includeSuppressed: link.include_suppressed, templateSource: template.source });
  } catch (error) {
    if (error instanceof NotFoundError) throw gone;
    throw error;
  }
}

/** PATCH /orgs/{org_id}/report-link-ttl: links minted afterwards use it. Audited org.report_link_ttl_update. */
export async function setReportLinkTtl(ctx: IdentityCtx, orgId: string, ttlHours: number) {
  const before = await ctx.engine.stores.orgs.get(orgId);
  if (!before) throw new NotFoundError('Organization not found');
  await ctx.engine.stores.orgs.update(orgId, { report_link_ttl_hours: ttlHours });
  await recordAudit(ctx, {
    orgId, action: 'org.report_link_ttl_update', targetType: 'organization', targetId: orgId,
    before: { report_link_ttl_hours: before.report_link_ttl_hours }, after: { report_link_ttl_hours: ttlHours },
  });
  return { report_link_ttl_hours: ttlHours };
}
