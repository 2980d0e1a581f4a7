import { deleteRunTask, getRunTask, putRunTask, verifyRunTaskRequest } from '@planwarden/engine/integrations/run-task-config';
import { acceptRunTask } from '@planwarden/engine/integrations/run-task-process';
import { ValidationError } from '@planwarden/engine/core/errors';
import { route, type RouteDef } from '../http/route';
import type { ServerServices } from '../services';
import { ownOrg } from './org-path';
import { RunTaskConfigSchema, RunTaskRequestSchema } from './run-tasks.schema';
import { NO_QUERY, param, parseBody } from './shared';

const CONFIG_PATH = '/orgs/:org_id/integrations/run-task';
/** A run task request is a few KB of JSON; HCP sends nothing larger. */
const MAX_REQUEST_BYTES = 256 * 1024;

/** The raw body as JSON parsed with the request schema; 422 naming the field otherwise. */
function parseRunTaskRequest(raw: Buffer) {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError('body: not JSON');
  }
  const result = RunTaskRequestSchema.safeParse(json);
  if (!result.success) throw new ValidationError(result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '));
  return result.data;
}

/**
 * HCP Terraform run tasks (docs/decisions.md "Run tasks"): the org's configuration (admin) and
 * the public, signature-authenticated endpoint HCP calls. The endpoint answers 200 at once and
 * works in the background: plan download, analysis job, PATCH of the task result.
 * Statuses of POST /run-tasks/{org_id}: 404 no run task configured, 401 missing or bad
 * X-TFC-Task-Signature, 422 malformed request or a callback URL the egress policy refuses.
 */
export function runTaskRoutes(services: ServerServices): RouteDef[] {
  const deps = { analysis: services.analysis, publicBaseUrl: services.config.server.public_base_url };
  return [
    route({
      method: 'put',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'json',
      query: NO_QUERY,
      requestBody: RunTaskConfigSchema,
      handler: async (ctx, req) => ({ body: await putRunTask(ctx.engine, ownOrg(ctx, req), parseBody(RunTaskConfigSchema, req)) }),
    }),
    route({
      method: 'get',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await getRunTask(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'delete',
      path: CONFIG_PATH,
      policy: 'admin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await deleteRunTask(ctx.engine, ownOrg(ctx, req)) }),
    }),
    route({
      method: 'post',
      path: '/run-tasks/:org_id',
      policy: 'public',
      body: 'text',
      query: NO_QUERY,
      maxBodyBytes: MAX_REQUEST_BYTES,
      handler: async (ctx, req) => {
        const orgId = param(req, 'org_id');
        const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
        const config = await verifyRunTaskRequest(ctx.engine, orgId, raw, req.get('x-tfc-task-signature'));
        const accepted = acceptRunTask(deps, orgId, config, parseRunTaskRequest(raw));
        return { body: { detail: accepted.verification ? 'Run task verified' : 'Run task accepted' } };
      },
    }),
  ];
}
