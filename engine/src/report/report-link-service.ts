import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { renderNamespaceReport, type ReportFormat } from './namespace-report';
import { assertNamespace } from '../analysis/ingest-service';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';
import { recordAudit } from '../audit/record';
import type { IdentityCtx } from '../context/identity-context';
import type { ReportLinkDoc } from './report-link-store';
import { creatorLane, sandboxLane, type LaneActor } from './template-sandbox-lane';
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
 * is stored (with a separate random `link_id` for listing and revocation), expiring after the
 * org's `report_link_ttl_hours` (default 24). `createdBy` names the caller (e-mail, user or key
 * id; null for integrations). Returns the token.
 */
export async function mintReportLink(ctx: EngineContext, orgId: string, namespace: string, createdBy: string | null = null): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  const org = await ctx.stores.orgs.get(orgId);
  const ttlHours = org?.report_link_ttl_hours ?? 24;
  const now = ctx.now();
  await ctx.stores.reportLinks.insert({
    link_id: `rl_${randomUUID()}`,
    org_id: orgId,
    token_sha256: tokenDigest(token),
    namespace,
    template_id: null,
    include_suppressed: false,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ttlHours * 3_600_000).toISOString(),
    created_by: createdBy,
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
  /** Who asks (recorded on a minted link as `created_by`); null or omitted when unknown. */
  readonly createdBy?: string | null;
  /** The caller, whose sandbox lane an org template renders in (template-sandbox-lane.ts); omitted: the org's. */
  readonly actor?: LaneActor;
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
  const reportHtmlUrl =
    template.format === 'markdown_light' ? `${options.linkBase}${await mintReportLink(ctx, orgId, namespace, options.createdBy ?? null)}` : null;
  const dashboardUrl = options.dashboardBaseUrl ? `${options.dashboardBaseUrl.replace(/\/+$/, '')}/findings?namespace=${encodeURIComponent(namespace)}` : null;
  const lane = template.source && options.actor ? await sandboxLane(ctx, orgId, options.actor) : undefined;
  const rendered = await renderNamespaceReport(ctx, orgId, namespace, {
    format: template.format,
    includeSuppressed: options.includeSuppressed,
    templateSource: template.source,
    reportHtmlUrl,
    dashboardUrl,
    sandboxLane: lane,
  });
  return { ...rendered, format: template.format };
}

/**
 * GET /reports/{token} (public): the HTML report of the link's namespace, rendered now with
 * the org's default html template or the built-in (in the sandbox lane of the link's creator,
 * so public links do not add lanes). Unknown, malformed and expired tokens all throw the same
 * NotFoundError (404).
 */
export async function openReportLink(ctx: EngineContext, token: string) {
  const gone = new NotFoundError('Report not found');
  if (!REPORT_TOKEN_RE.test(token)) throw gone;
  const link = await ctx.stores.reportLinks.unsafeByTokenHash(tokenDigest(token));
  if (!link || link.expires_at <= ctx.now().toISOString()) throw gone;
  const template = await resolveTemplate(ctx, link.org_id, 'html', null);
  const lane = template.source ? await creatorLane(ctx, link.org_id, link.created_by) : undefined;
  try {
    return await renderNamespaceReport(ctx, link.org_id, link.namespace, {
      format: 'html',
      includeSuppressed: link.include_suppressed,
      templateSource: template.source,
      sandboxLane: lane,
    });
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
    orgId,
    action: 'org.report_link_ttl_update',
    targetType: 'organization',
    targetId: orgId,
    before: { report_link_ttl_hours: before.report_link_ttl_hours },
    after: { report_link_ttl_hours: ttlHours },
  });
  return { report_link_ttl_hours: ttlHours };
}

/** A link as GET /orgs/{org_id}/report-links lists it: never the token (nor its hash). */
export function presentReportLink(doc: ReportLinkDoc) {
  return {
    link_id: doc.link_id ?? doc._id ?? '',
    namespace: doc.namespace,
    created_at: doc.created_at,
    expires_at: doc.expires_at,
    created_by: doc.created_by ?? null,
  };
}

/** Links listed at most (a link lives ≤ 720 h; more live links than this is not a human-scale list). */
export const REPORT_LINK_LIST_LIMIT = 1000;

/**
 * GET /orgs/{org_id}/report-links (extension, docs/decisions.md "Public report links: list and
 * revoke"): the org's unexpired links, newest first, `{links: [{link_id, namespace, created_at,
 * expires_at, created_by}]}`. Expired links are not listed (they already answer 404).
 */
export async function listReportLinks(ctx: EngineContext, orgId: string) {
  const docs = await ctx.stores.reportLinks.listLive(orgId, ctx.now().toISOString(), REPORT_LINK_LIST_LIMIT);
  return { links: docs.map(presentReportLink) };
}

/**
 * DELETE /orgs/{org_id}/report-links/{link_id} (extension): removes the link, so its token then
 * gets the same 404 as an unknown one from GET /reports/{token}. NotFoundError (404) for an
 * unknown id or one of another org. Audited `report_link.revoke` (before: the listed fields).
 */
export async function revokeReportLink(ctx: IdentityCtx, orgId: string, linkId: string): Promise<void> {
  const link = await ctx.engine.stores.reportLinks.get(orgId, linkId);
  if (!link?._id || !(await ctx.engine.stores.reportLinks.remove(orgId, link._id))) throw new NotFoundError('Report link not found');
  await recordAudit(ctx, {
    orgId,
    action: 'report_link.revoke',
    targetType: 'report_link',
    targetId: presentReportLink(link).link_id,
    before: presentReportLink(link),
    after: null,
  });
}
