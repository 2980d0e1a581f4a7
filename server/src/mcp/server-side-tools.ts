import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { AnalyzeRequestSchema, startAnalysis } from '@planwarden/engine/analysis/analyze-service';
import { cancelJob, getJob, presentJob } from '@planwarden/engine/analysis/job-service';
import { AnalyzerNameSchema } from '../routes/analyzers.schema';
import { NamespaceSchema } from '../routes/ingest.schema';
import { registerGuardedTool, toolResult, type McpDeps } from './context';
import { fenceUntrusted, UNTRUSTED_REPORT_NOTICE } from './untrusted';

/** The analyzer value that selects auto-routing (POST /{namespace}/analyze/auto). */
export const AUTO_ANALYZER = 'auto';

const jobId = z.string().min(1).max(128).describe('The job_id returned by analyze');

/**
 * The server-side analysis tools (analysis-api.md "What the service does" item 4, "Job"):
 * analyze, get_job, cancel_job. The server calls the LLM; the same service functions, quota
 * checks and job runner as the HTTP routes.
 */
export function registerServerSideTools(server: McpServer, deps: McpDeps): void {
  registerGuardedTool(
    server,
    deps,
    'analyze',
    'POST /:analyzer_name/:namespace/analyze',
    {
      title: 'Analyse on the server',
      description:
        "Ingests raw_input and has the server's LLM analyse it (as POST /api/v1/{analyzer}/{namespace}/analyze, or " +
        '/{namespace}/analyze/auto when analyzer is "auto"). A small input runs inline and returns the report; a larger one ' +
        'becomes a background job (status "queued"): follow it with get_job. Units already analysed are skipped. ' +
        "api_key is used for this run only and never stored; without it the org's stored credential is used.",
      inputSchema: {
        analyzer: AnalyzerNameSchema.default(AUTO_ANALYZER).describe('Analyzer name, or "auto" to route each file (default)'),
        namespace: NamespaceSchema,
        ...AnalyzeRequestSchema.shape,
      },
    },
    async (ctx, args) => {
      const { analyzer, namespace, ...request } = args;
      const name = analyzer === AUTO_ANALYZER ? null : analyzer;
      const { status, body } = await startAnalysis(deps.services.analysis, ctx.orgId, name, namespace, request);
      if (status === 202) {
        return toolResult(
          { ...body },
          `Job ${body.job_id} queued (HTTP 202). Poll get_job until its status is done, failed or cancelled, then call get_report.`,
        );
      }
      const report = typeof body.report_markdown === 'string' ? body.report_markdown : '';
      return toolResult({ status: 'done', ...body }, [
        `Analysis finished inline (job ${String(body.job_id)}).`,
        fenceUntrusted(report, UNTRUSTED_REPORT_NOTICE).fenced,
      ]);
    },
  );

  registerGuardedTool(
    server,
    deps,
    'get_job',
    'GET /jobs/:job_id',
    {
      title: 'Get a job',
      description:
        'Returns a server-side analysis job (as GET /api/v1/jobs/{job_id}): status (queued, running, done, failed, ' +
        'cancelled), processed_count/total_count progress, quota_exceeded and error.',
      inputSchema: { job_id: jobId },
      annotations: { readOnlyHint: true },
    },
    async (ctx, args) => toolResult(presentJob(await getJob(ctx.engine, ctx.orgId, args.job_id))),
  );

  registerGuardedTool(
    server,
    deps,
    'cancel_job',
    'POST /jobs/:job_id/cancel',
    {
      title: 'Cancel a job',
      description:
        'Cancels a queued or running background job (as POST /api/v1/jobs/{job_id}/cancel); a running job stops ' +
        'after its current batch. A sync or finished job answers 409.',
      inputSchema: { job_id: jobId },
      annotations: { destructiveHint: true },
    },
    async (ctx, args) => toolResult(await cancelJob(ctx.engine, ctx.orgId, args.job_id)),
  );
}
