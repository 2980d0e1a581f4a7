import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { requireAnalyzer } from '@planwarden/engine/analysis/analyzer-access';
import { ingestAuto, ingestWithAnalyzer } from '@planwarden/engine/analysis/ingest-service';
import { renderNamespaceReport } from '@planwarden/engine/report/namespace-report';
import { AnalysisPayloadSchema } from '@planwarden/engine/core/payload';
import { nextResource, submitAnalysis } from '@planwarden/engine/analysis/resource-service';
import { resolveRuleset } from '@planwarden/engine/analysis/ruleset-service';
import type { AnalysisUnit } from '@planwarden/engine/core/unit';
import { PayloadTooLargeError } from '@planwarden/engine/core/errors';
import { AnalyzerNameSchema, RulesQuerySchema } from '../routes/analyzers.schema';
import { INGEST_MAX_BYTES, NamespaceSchema, NextResourceQuerySchema } from '../routes/ingest.schema';
import { ReportQuerySchema } from '../routes/reports.schema';
import { registerGuardedTool, statusLine, toolResult, type McpDeps } from './context';
import { fenceUntrusted, presentNextResource, UNTRUSTED_REPORT_NOTICE } from './untrusted';

const namespace = NamespaceSchema.describe('Namespace grouping one plan or pull request, e.g. "pr-123" (letters, digits, ".", "_", "-")');
const rawInput = z.string().describe('The raw input: `terraform show -json` output, plan text, or a unified diff');

/** The ingest body limit of the HTTP routes (10 MB, analysis-api.md "Limits"). Throws PayloadTooLargeError. */
function assertIngestSize(raw: string): void {
  if (Buffer.byteLength(raw, 'utf8') > INGEST_MAX_BYTES) throw new PayloadTooLargeError('raw_input exceeds the 10 MB ingest limit');
}

/** Ingested units without their bodies: the agent reads each body, fenced, from next_resource. */
function presentUnits(units: readonly AnalysisUnit[]) {
  return units.map((u) => ({ hash: u.hash, type: u.type, name: u.name, action: u.action, analyzer: u.metadata.analyzer ?? null }));
}

/**
 * The client-led tools (analysis-api.md "What the service does" item 3): list_analyzers,
 * get_ruleset, ingest, ingest_auto, next_resource, submit_analysis, get_report. Each calls the
 * engine service its HTTP route calls, with the route's role.
 */
export function registerClientLedTools(server: McpServer, deps: McpDeps): void {
  registerGuardedTool(
    server,
    deps,
    'list_analyzers',
    'GET /analyzers',
    {
      title: 'List analyzers',
      description: 'Lists the analyzers registered on the server (as GET /api/v1/analyzers): name and description.',
      inputSchema: {},
      annotations: { readOnlyHint: true },
    },
    async (ctx) =>
      toolResult({
        analyzers: ctx.engine.analyzers.list().map((a) => ({ name: a.name, description: a.description })),
      }),
  );

  registerGuardedTool(
    server,
    deps,
    'get_ruleset',
    'GET /:analyzer_name/rules',
    {
      title: 'Get a ruleset',
      description:
        'Returns the Markdown security ruleset of an analyzer (as GET /api/v1/{analyzer}/rules). ' +
        'Fetch it once before the loop; `type` picks a rule variant (e.g. aws, azure, gcp for terraform).',
      inputSchema: { analyzer: AnalyzerNameSchema.describe('Analyzer name, e.g. "terraform"'), ...RulesQuerySchema.shape },
      annotations: { readOnlyHint: true },
    },
    async (ctx, args) => {
      const analyzer = await requireAnalyzer(ctx.engine, ctx.orgId, args.analyzer);
      const ruleset = await resolveRuleset(ctx.engine, ctx.orgId, analyzer, args.type ?? null);
      return toolResult({ analyzer: ruleset.analyzer, variant: ruleset.variant, digest: ruleset.digest, rules: ruleset.text }, ruleset.text);
    },
  );

  registerGuardedTool(
    server,
    deps,
    'ingest',
    'POST /:analyzer_name/:namespace/ingest',
    {
      title: 'Ingest with an analyzer',
      description:
        'Splits raw_input into analysis units with the named analyzer and records them in the namespace ' +
        '(as POST /api/v1/{analyzer}/{namespace}/ingest). Returns the units without their bodies; read each with next_resource.',
      inputSchema: { analyzer: AnalyzerNameSchema.describe('Analyzer name, e.g. "terraform"'), namespace, raw_input: rawInput },
    },
    async (ctx, args) => {
      assertIngestSize(args.raw_input);
      const units = await ingestWithAnalyzer(ctx.engine, ctx.orgId, args.analyzer, args.namespace, args.raw_input);
      return toolResult({ namespace: args.namespace, unit_count: units.length, units: presentUnits(units) });
    },
  );

  registerGuardedTool(
    server,
    deps,
    'ingest_auto',
    'POST /:namespace/ingest/auto',
    {
      title: 'Ingest with auto-routing',
      description:
        'Routes each file of a diff (or a whole input) to the analyzer that claims it and records the units ' +
        '(as POST /api/v1/{namespace}/ingest/auto). Returns the units (without bodies), analyzers_used and detections.',
      inputSchema: { namespace, raw_input: rawInput },
    },
    async (ctx, args) => {
      assertIngestSize(args.raw_input);
      const routed = await ingestAuto(ctx.engine, ctx.orgId, args.namespace, args.raw_input);
      return toolResult({
        namespace: args.namespace,
        unit_count: routed.units.length,
        units: presentUnits(routed.units),
        analyzers_used: routed.analyzers_used,
        detections: routed.detections,
      });
    },
  );

  registerGuardedTool(
    server,
    deps,
    'next_resource',
    'GET /:namespace/resource/next',
    {
      title: 'Next unanalysed resource',
      description:
        'Returns the next unanalysed resource of the namespace (as GET /api/v1/{namespace}/resource/next): ' +
        'its hash, metadata, its body fenced as UNTRUSTED DATA, and the ruleset to apply. When every resource is analysed ' +
        'it returns status "all_analysed" (the HTTP 208): the loop is over, call get_report.',
      inputSchema: {
        namespace,
        ...NextResourceQuerySchema.shape,
        include_rules: z.boolean().default(true).describe('Set false once you hold the ruleset from get_ruleset, to save tokens'),
      },
      annotations: { readOnlyHint: true },
    },
    async (ctx, args) => {
      const next = await nextResource(ctx.engine, ctx.orgId, args.namespace, args.rule_type ?? null);
      if (next === null) {
        return toolResult(
          { status: 'all_analysed', namespace: args.namespace, detail: 'All resources in the namespace are analysed' },
          `${statusLine(208)}: all resources in namespace ${JSON.stringify(args.namespace)} are analysed. The loop is done; call get_report.`,
        );
      }
      const { texts, structured } = presentNextResource(args.namespace, next, args.include_rules);
      return toolResult(structured, texts);
    },
  );

  registerGuardedTool(
    server,
    deps,
    'submit_analysis',
    'PUT /resource/:hash/analysis',
    {
      title: 'Submit an analysis',
      description:
        'Stores the analysis of one resource (as PUT /api/v1/resource/{hash}/analysis): a one-paragraph summary ' +
        'and at least one finding. Use rule ids from the ruleset; evidence lines are copied exactly from the body.',
      inputSchema: { hash: z.string().min(1).max(128).describe('The resource hash from next_resource'), analysis: AnalysisPayloadSchema },
    },
    async (ctx, args) => {
      const stored = await submitAnalysis(ctx.engine, ctx.orgId, args.hash, args.analysis);
      return toolResult(
        { hash: stored.hash, analysed: true, finding_count: stored.analysis?.findings.length ?? 0 },
        `Analysis of ${stored.hash} stored (${stored.analysis?.findings.length ?? 0} finding(s)). Call next_resource for the next one.`,
      );
    },
  );

  registerGuardedTool(
    server,
    deps,
    'get_report',
    'GET /:namespace/report',
    {
      title: 'Get the report',
      description:
        'Renders the namespace report (as GET /api/v1/{namespace}/report): markdown (default), markdown_light or html. ' +
        'Findings triaged suppressed or false_positive are hidden unless include_suppressed is true.',
      inputSchema: {
        namespace,
        format: ReportQuerySchema.shape.format,
        include_suppressed: z.boolean().default(false),
      },
      annotations: { readOnlyHint: true },
    },
    async (ctx, args) => {
      const report = await renderNamespaceReport(ctx.engine, ctx.orgId, args.namespace, { format: args.format, includeSuppressed: args.include_suppressed });
      return toolResult(
        { namespace: args.namespace, format: args.format, content_type: report.contentType, report: report.content },
        fenceUntrusted(report.content, UNTRUSTED_REPORT_NOTICE).fenced,
      );
    },
  );
}
