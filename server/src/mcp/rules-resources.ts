import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { analyzerEnabledPredicate, requireAnalyzer } from '@planwarden/engine/analysis/analyzer-access';
import { resolveRuleset } from '@planwarden/engine/analysis/ruleset-service';
import { describeError, mcpContext, policyOf, statusLine, type McpDeps } from './context';

/** URI template of the ruleset resources: one per (analyzer, rule variant). */
export const RULESET_URI_TEMPLATE = 'planwarden://rules/{analyzer}/{variant}';

/** The resource URI of one ruleset variant. */
export function rulesetUri(analyzer: string, variant: string): string {
  return `planwarden://rules/${encodeURIComponent(analyzer)}/${encodeURIComponent(variant)}`;
}

function single(value: string | string[] | undefined): string {
  return decodeURIComponent(Array.isArray(value) ? value.join('/') : (value ?? ''));
}

/**
 * Registers the rulesets as MCP resources (`planwarden://rules/{analyzer}/{variant}`, Markdown),
 * read with the same role (member) and org view (a disabled analyzer is 404) as
 * GET /{analyzer}/rules?type={variant}. The listing shows the analyzers enabled for the caller's
 * org; a caller who may not read rules gets an empty list. Read failures are JSON-RPC errors whose
 * message carries the HTTP status (`404 Not Found: ...`).
 */
export function registerRulesetResources(server: McpServer, deps: McpDeps): void {
  const template = new ResourceTemplate(RULESET_URI_TEMPLATE, {
    list: async (extra) => {
      let orgId: string;
      try {
        orgId = (await mcpContext(deps, extra, policyOf(deps, 'GET /:analyzer_name/rules'))).orgId;
      } catch {
        return { resources: [] };
      }
      const enabled = await analyzerEnabledPredicate(deps.services.engine, orgId);
      const resources = deps.services.engine.analyzers
        .list()
        .filter((a) => enabled(a.name) && a.defaultRuleVariant)
        .flatMap((a) =>
          (a.ruleVariants ?? []).map((variant) => ({
            uri: rulesetUri(a.name, variant),
            name: `${a.name}/${variant}`,
            title: `${a.name} ruleset (${variant}${variant === a.defaultRuleVariant ? ', default' : ''})`,
            mimeType: 'text/markdown',
          })),
        );
      return { resources };
    },
  });
  server.registerResource(
    'ruleset',
    template,
    {
      title: 'Security rulesets',
      description: 'The Markdown security ruleset of an analyzer variant, exactly as GET /api/v1/{analyzer}/rules?type={variant} serves it.',
      mimeType: 'text/markdown',
    },
    async (uri, variables, extra) => {
      try {
        const ctx = await mcpContext(deps, extra, policyOf(deps, 'GET /:analyzer_name/rules'));
        const analyzer = await requireAnalyzer(ctx.engine, ctx.orgId, single(variables.analyzer));
        const ruleset = await resolveRuleset(ctx.engine, ctx.orgId, analyzer, single(variables.variant));
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: ruleset.text }] };
      } catch (error) {
        const { status, detail } = describeError(error, deps.log, '');
        throw new McpError(status >= 500 ? ErrorCode.InternalError : ErrorCode.InvalidParams, `${statusLine(status)}: ${detail}`);
      }
    },
  );
}
