import { z } from 'zod';
import { AnalyzeRequestSchema, startAnalysis } from '@planwarden/engine/analysis/analyze-service';
import { cancelJob, getJob, listJobs, presentJob, retryJob } from '@planwarden/engine/analysis/job-service';
import { JOB_STATUSES, type JobStatus } from '@planwarden/engine/analysis/job-store';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { NO_QUERY, pageQuery, param, parseBody, parseQuery } from './shared';

const JobsQuery = z.object({
  status: z.enum(JOB_STATUSES as [JobStatus, ...JobStatus[]]).optional(),
  ...pageQuery(200, 50),
});
const RetrySchema = z.object({ api_key: z.string().min(1).nullable().optional() });

/** analysis-api.md "Server-side analysis" and "Jobs". */
export function analyzeRoutes(services: ServerServices): RouteDef[] {
  // JSON framing adds a little to raw_input; the service itself enforces max_input_size_mb (413).
  const analyzeLimit = () => services.config.server.max_input_size_mb * 1024 * 1024 * 2 + 64 * 1024;
  return [
    route({
      method: 'get',
      path: '/jobs',
      policy: 'viewer',
      body: 'none',
      query: JobsQuery,
      handler: async (ctx, req) => {
        const { status, limit, offset } = parseQuery(JobsQuery, req);
        return { body: await listJobs(ctx.engine, ctx.orgId, status, { limit, offset }) };
      },
    }),
    route({
      method: 'get',
      path: '/jobs/:job_id',
      policy: 'viewer',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: presentJob(await getJob(ctx.engine, ctx.orgId, param(req, 'job_id'))) }),
    }),
    route({
      method: 'post',
      path: '/jobs/:job_id/cancel',
      policy: 'member',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await cancelJob(ctx.engine, ctx.orgId, param(req, 'job_id')) }),
    }),
    route({
      method: 'post',
      path: '/jobs/:job_id/retry',
      policy: 'member',
      body: 'json',
      requestBody: RetrySchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const { api_key } = parseBody(RetrySchema, req);
        return { status: 202, body: await retryJob(services.analysis, ctx.orgId, param(req, 'job_id'), api_key) };
      },
    }),
    route({
      method: 'post',
      path: '/:namespace/analyze/auto',
      policy: 'member',
      body: 'json',
      requestBody: AnalyzeRequestSchema,
      query: NO_QUERY,
      maxBodyBytes: analyzeLimit,
      handler: async (ctx, req) => startAnalysis(services.analysis, ctx.orgId, null, param(req, 'namespace'), req.body),
    }),
    route({
      method: 'post',
      path: '/:analyzer_name/:namespace/analyze',
      policy: 'member',
      body: 'json',
      requestBody: AnalyzeRequestSchema,
      query: NO_QUERY,
      maxBodyBytes: analyzeLimit,
      handler: async (ctx, req) => startAnalysis(services.analysis, ctx.orgId, param(req, 'analyzer_name'), param(req, 'namespace'), req.body),
    }),
  ];
}
