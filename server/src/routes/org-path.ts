import type { Request } from 'express';
import type { RequestContext } from '../http/request-context';
import { param, requireOwnOrg } from './shared';

/**
 * The org of an `/orgs/{org_id}/...` path, which must be the caller's own (another org answers
 * 404 like a missing one). Returns the org id to scope the service call to.
 */
export function ownOrg(ctx: RequestContext, req: Request): string {
  requireOwnOrg(ctx, param(req, 'org_id'));
  return ctx.orgId;
}
