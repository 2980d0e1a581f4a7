import type { Analyzer } from '../core/unit';
import type { EngineContext } from '../context/engine-context';
import { NotFoundError } from '../core/errors';

/**
 * The analyzer `name` as the org sees it. Throws NotFoundError (404) when it is unknown or
 * disabled for the org (analysis-api.md: "A disabled analyzer's rules/ingest/analyze endpoints
 * answer 404 for the org").
 */
export async function requireAnalyzer(ctx: EngineContext, orgId: string, name: string): Promise<Analyzer> {
  const analyzer = ctx.analyzers.get(name);
  if (!analyzer) throw new NotFoundError(`Unknown analyzer '${name}'`);
  const overrides = await ctx.stores.orgs.analyzerOverrides(orgId);
  if (overrides.get(name) === false) throw new NotFoundError(`Unknown analyzer '${name}'`);
  return analyzer;
}

/** Predicate over analyzer names: enabled for the org (no override = enabled). */
export async function analyzerEnabledPredicate(ctx: EngineContext, orgId: string): Promise<(name: string) => boolean> {
  const overrides = await ctx.stores.orgs.analyzerOverrides(orgId);
  return (name) => overrides.get(name) !== false;
}

/** analysis-api.md GET /orgs/{org_id}/analyzers. */
export async function listOrgAnalyzers(ctx: EngineContext, orgId: string) {
  const enabled = await analyzerEnabledPredicate(ctx, orgId);
  return ctx.analyzers.list().map((a) => ({
    name: a.name,
    description: a.description,
    version: a.version,
    file_globs: [...a.fileGlobs],
    enabled: enabled(a.name),
  }));
}

/** analysis-api.md POST/DELETE /orgs/{org_id}/analyzers/{analyzer_name}. Throws NotFoundError. */
export async function setAnalyzerEnabled(ctx: EngineContext, orgId: string, name: string, enabled: boolean) {
  if (!ctx.analyzers.get(name)) throw new NotFoundError(`Unknown analyzer '${name}'`);
  await ctx.stores.orgs.setAnalyzerEnabled(orgId, name, enabled, ctx.now().toISOString());
  return { analyzer_name: name, enabled };
}
