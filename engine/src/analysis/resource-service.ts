import { createHash } from 'node:crypto';
import type { EngineContext } from '../context/engine-context';
import { AppError, NotFoundError, ValidationError } from '../core/errors';
import { recordTriage } from '../findings/triage';
import { assertNamespace } from './ingest-service';
import { requireAnalyzer } from './analyzer-access';
import { AnalysisPayloadSchema, type AnalysisPayload } from '../core/payload';
import type { AnalysisLayers, ResourceDoc } from '../ingest/resource-store';
import { analyzerRuleIds, assertKnownRuleType, resolveRuleset, resourceRuleset, unitRuleVariant } from './ruleset-service';
import { unknownRuleIds, verifyEvidence } from '../llm/parse-output';
import { contextLines } from '../llm/prompt-context';

/** analysis-api.md "Stored resource": `{hash, value, analysis}`. */
export function presentResource(doc: ResourceDoc) {
  return { hash: doc.hash, value: doc.value, analysis: doc.analysis };
}

/**
 * GET /{namespace}/resource/next: the next unanalysed resource with the ruleset to apply, or
 * null when every resource of the namespace is analysed (the route answers 208). Throws
 * NotFoundError (404) for a namespace nothing was ingested into.
 * `rules` is null when the originating analyzer cannot be determined (or is now disabled).
 * Throws ValidationError (422) for a `ruleType` no installed analyzer has as a rule variant.
 * `context` (an addition to the spec's shape, docs/decisions.md) is the unit's plan context as the
 * server-side prompt shows it (fenced, untrusted), or null when the unit has no companions.
 */
export async function nextResource(ctx: EngineContext, orgId: string, namespace: string, ruleType: string | null) {
  assertNamespace(namespace);
  assertKnownRuleType(ctx.analyzers, ruleType);
  const member = await ctx.stores.resources.nextUnanalysed(orgId, namespace);
  if (!member) {
    // A namespace nothing was ever ingested into (a typo, another org's) is not "all analysed".
    if (!(await ctx.stores.resources.namespaceExists(orgId, namespace))) throw new NotFoundError(`Namespace '${namespace}' not found`);
    return null;
  }
  const resource = await ctx.stores.resources.get(orgId, member.hash);
  if (!resource) return null;
  let rules: string | null = null;
  try {
    const analyzer = await requireAnalyzer(ctx, orgId, resource.analyzer);
    // Only the rules that apply to the unit (docs/decisions.md "Rule selection"), as the server-side path sends them.
    rules = resourceRuleset(await resolveRuleset(ctx, orgId, analyzer, unitRuleVariant(analyzer, resource, ruleType)), resource).text;
  } catch (error) {
    // Unknown/disabled analyzer or no rules for it: the spec's `rules: null`.
    if (!(error instanceof AppError)) throw error;
  }
  // The companions the server-side prompt shows after the unit (docs/decisions.md "Plan context"), as the
  // same fenced text: a client agent judges the unit with what the model would see.
  const context = contextLines(resource.metadata.context).join('\n').trim();
  return { hash: resource.hash, value: resource.value, rules, context: context === '' ? null : context, analysis: null };
}

/**
 * PUT /resource/{hash}/analysis: validates and stores an analysis and creates or refreshes
 * the triage record of every finding. Throws ValidationError (422) for a missing or empty
 * summary/findings and NotFoundError (404) for an unknown resource.
 * A client's analysis (source 'client') is held to the server path's rules (docs/decisions.md "Rule ids"): a
 * rule_id that no ruleset of the unit's analyzer declares is refused with 422 naming it, and
 * evidence lines that are not lines of the unit body are dropped, lowering the finding's
 * confidence one step (llm/parse-output.ts verifyEvidence).
 */
export async function submitAnalysis(
  ctx: EngineContext,
  orgId: string,
  hash: string,
  body: unknown,
  source: 'client' | 'server' = 'client',
  rulesetDigest: string | null = null,
) {
  const parsed = AnalysisPayloadSchema.safeParse(body);
  if (!parsed.success) {
    throw new ValidationError(parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  }
  const existing = await ctx.stores.resources.get(orgId, hash);
  if (!existing) throw new NotFoundError('Resource not found');
  let payload = parsed.data;
  if (source === 'client') {
    const analyzer = ctx.analyzers.get(existing.analyzer);
    const known = analyzer ? await analyzerRuleIds(ctx, orgId, analyzer) : null;
    const unknown = known ? unknownRuleIds(payload, known) : [];
    if (unknown.length > 0) {
      throw new ValidationError(
        `findings: rule_id ${unknown.map((id) => `'${id}'`).join(', ')} is not a rule of analyzer '${existing.analyzer}' (use an id from GET /${existing.analyzer}/rules, or NO-FINDINGS)`,
      );
    }
    payload = verifyEvidence(payload, existing.value.body).payload;
  }
  const digest = rulesetDigest ?? (await clientRulesetDigest(ctx, orgId, existing));
  return saveAnalysis(ctx, orgId, existing, payload, source, digest);
}

/**
 * The digest an analysis is recorded (and reused) with (docs/decisions.md "Plan context"): the ruleset
 * digest alone for a unit without companions (so analyses stored before plan context stay
 * valid), else hex SHA-256 over the ruleset digest and `metadata.context_digest`
 * (analyzers/terraform/plan-context.ts). A unit whose companions changed therefore no longer
 * matches its stored analysis and is analysed again; an unchanged plan matches and costs no call.
 */
export function analysisDigest(rulesetDigest: string, metadata: Readonly<Record<string, unknown>>): string {
  const context = metadata.context_digest;
  if (typeof context !== 'string' || context === '') return rulesetDigest;
  return createHash('sha256').update(`planwarden-analysis/1\u0000${rulesetDigest}\u0000${context}`, 'utf8').digest('hex');
}

/** What the server's run loop adds when it stores an analysis (run-job.ts). */
export interface ServerSaveOptions {
  /** The layers the analysis holds (docs/decisions.md "Analysis layers"); default null (a client's analysis). */
  readonly layers?: AnalysisLayers | null;
  /**
   * The findings whose triage records are created or refreshed; default the whole payload. The
   * model's part added to check findings stored earlier passes only the new findings, so the
   * checks' records are not counted twice.
   */
  readonly triage?: AnalysisPayload;
}

/**
 * Stores a validated analysis and its triage records; shared by the client and server paths.
 * `reviewRules`: the org's requires_review rule ids when the caller holds them (findings/triage.ts recordTriage).
 * Returns the presented resource; throws NotFoundError when the resource is gone.
 */
export async function saveAnalysis(
  ctx: EngineContext,
  orgId: string,
  resource: ResourceDoc,
  payload: AnalysisPayload,
  source: 'client' | 'server',
  digest: string | null,
  reviewRules?: ReadonlySet<string>,
  options: ServerSaveOptions = {},
) {
  const now = ctx.now().toISOString();
  const saved = await ctx.stores.resources.saveAnalysis(orgId, resource.hash, payload, { rulesetDigest: digest, source, now, layers: options.layers ?? null });
  if (!saved) throw new NotFoundError('Resource not found');
  await recordTriage(ctx, orgId, resource.hash, options.triage ?? payload, now, reviewRules);
  return presentResource(saved);
}

/** A client analysis is recorded with the digest of the rules next-resource serves for the unit by default (the selection), and of its plan context. */
async function clientRulesetDigest(ctx: EngineContext, orgId: string, resource: ResourceDoc): Promise<string | null> {
  const analyzer = ctx.analyzers.get(resource.analyzer);
  if (!analyzer?.defaultRuleVariant) return null;
  try {
    return analysisDigest(
      resourceRuleset(await resolveRuleset(ctx, orgId, analyzer, unitRuleVariant(analyzer, resource, null)), resource).digest,
      resource.metadata,
    );
  } catch {
    return null;
  }
}

/** GET /resource/{hash}?filter=value|analysis|hash. Throws NotFoundError. */
export async function getResource(ctx: EngineContext, orgId: string, hash: string, filter: 'value' | 'analysis' | 'hash' | null) {
  const doc = await ctx.stores.resources.get(orgId, hash);
  if (!doc) throw new NotFoundError('Resource not found');
  const full = presentResource(doc);
  if (filter === 'value') return { hash: full.hash, value: full.value };
  if (filter === 'analysis') return { hash: full.hash, analysis: full.analysis };
  if (filter === 'hash') return { hash: full.hash };
  return full;
}

/** A resource as the API returns it (presentResource). */
export type PresentedResource = ReturnType<typeof presentResource>;

/** Members whose documents are read, presented and handed on at a time by listNamespaceResources. */
const RESOURCE_PAGE = 100;

/**
 * GET /{namespace}/resources: every resource document of the namespace in ingest order, as pages
 * of presented resources (their concatenation is the reply's array). The members are read first
 * (ResourceStore.listMembers, in timed pages), so an unknown namespace throws NotFoundError before
 * anything is sent; then each page's documents are read when the consumer asks for it, so a
 * namespace of thousands of units is never held in memory whole (megabytes of documents, whose
 * garbage collection would hold the event loop for hundreds of milliseconds) and no read is longer
 * than a page's. A resource gone between the two reads is left out.
 */
export async function listNamespaceResources(ctx: EngineContext, orgId: string, namespace: string): Promise<AsyncIterable<PresentedResource[]>> {
  assertNamespace(namespace);
  const members = await ctx.stores.resources.listMembers(orgId, namespace);
  if (members.length === 0) throw new NotFoundError(`Namespace '${namespace}' not found`);
  return (async function* () {
    for (let i = 0; i < members.length; i += RESOURCE_PAGE) {
      const batch = members.slice(i, i + RESOURCE_PAGE);
      const docs = await ctx.stores.resources.getMany(
        orgId,
        batch.map((m) => m.hash),
      );
      const byHash = new Map(docs.map((d) => [d.hash, d]));
      yield batch.flatMap((m) => (byHash.has(m.hash) ? [presentResource(byHash.get(m.hash)!)] : []));
    }
  })();
}

/** GET /namespaces: `{namespace, created_at}` newest first. */
export async function listNamespaces(ctx: EngineContext, orgId: string) {
  const rows = await ctx.stores.resources.listNamespaces(orgId);
  return rows.map((r) => ({ namespace: r.namespace, created_at: r.created_at }));
}
