import { resolve } from 'node:path';
import { z } from 'zod';
import { platformMetrics, platformUsage } from '@planwarden/engine/admin/platform-usage';
import {
  defaultStorageDeps,
  prepareDocdb,
  PrepareDocdbSchema,
  storageStatus,
  StorageSwitchSchema,
  switchStorage,
} from '@planwarden/engine/admin/storage-admin';
import { cancelOrgDeletion, purgePendingOrgs, requestOrgDeletion } from '@planwarden/engine/admin/offboarding';
import { PlanPatchSchema, setPlan } from '@planwarden/engine/orgs/plan-service';
import { analysesStarted } from '@planwarden/engine/usage/usage-service';
import { identityCtx } from '../auth/identity';
import { route, type RouteDef } from '../http/route';
import { jobsSweepStatus, retentionStatus, runJobsSweep, runRetention } from '../tasks/platform-tasks';
import type { ServerServices } from '../services';
import { DaysQuery } from './identity.schema';
import { booleanQuery, NO_QUERY, param, parseBody, parseQuery } from './shared';

const ForceQuery = z.object({ force: booleanQuery.default(false) });

/**
 * identity-api.md "Platform administration" (superadmin): plans, offboarding, cross-org usage
 * and metrics, the retention and jobs sweeps, and storage (status, docdb preparation, the runtime switch).
 */
export function adminPlatformRoutes(services: ServerServices): RouteDef[] {
  const storageDeps = defaultStorageDeps(resolve(services.config.data_dir));
  return [
    route({
      method: 'patch',
      path: '/admin/organizations/:org_id/plan',
      policy: 'superadmin',
      body: 'json',
      requestBody: PlanPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({
        body: await setPlan(identityCtx(ctx), param(req, 'org_id'), parseBody(PlanPatchSchema, req), (org) => analysesStarted(ctx.engine, org)),
      }),
    }),
    route({
      method: 'post',
      path: '/admin/organizations/purge-pending',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await purgePendingOrgs(identityCtx(ctx), services.settings.gracePeriodDays()) }),
    }),
    route({
      method: 'delete',
      path: '/admin/organizations/:org_id',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await requestOrgDeletion(identityCtx(ctx), param(req, 'org_id'), services.settings.gracePeriodDays()) }),
    }),
    route({
      method: 'post',
      path: '/admin/organizations/:org_id/cancel-deletion',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await cancelOrgDeletion(identityCtx(ctx), param(req, 'org_id')) }),
    }),
    route({
      method: 'get',
      path: '/admin/usage',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await platformUsage(ctx.engine) }),
    }),
    route({
      method: 'get',
      path: '/admin/metrics/summary',
      policy: 'superadmin',
      body: 'none',
      query: DaysQuery,
      handler: async (ctx, req) => ({ body: await platformMetrics(ctx.engine, parseQuery(DaysQuery, req).days) }),
    }),
    route({
      method: 'post',
      path: '/admin/retention/run',
      policy: 'superadmin',
      body: 'none',
      query: ForceQuery,
      handler: async (_ctx, req) => ({ body: await runRetention(services, parseQuery(ForceQuery, req).force) }),
    }),
    route({
      method: 'get',
      path: '/admin/retention/status',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async () => ({ body: await retentionStatus(services) }),
    }),
    route({
      method: 'post',
      path: '/admin/jobs/sweep',
      policy: 'superadmin',
      body: 'none',
      query: ForceQuery,
      handler: async (_ctx, req) => ({ body: await runJobsSweep(services, parseQuery(ForceQuery, req).force) }),
    }),
    route({
      method: 'get',
      path: '/admin/jobs/sweep-status',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async () => ({ body: await jobsSweepStatus(services) }),
    }),
    route({
      method: 'get',
      path: '/admin/storage',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async (ctx) => ({ body: await storageStatus(ctx.engine) }),
    }),
    route({
      method: 'post',
      path: '/admin/storage/prepare-docdb',
      policy: 'superadmin',
      body: 'json',
      requestBody: PrepareDocdbSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await prepareDocdb(ctx.engine, storageDeps, parseBody(PrepareDocdbSchema, req)) }),
    }),
    route({
      method: 'post',
      path: '/admin/storage/switch',
      policy: 'superadmin',
      body: 'json',
      requestBody: StorageSwitchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => ({ body: await switchStorage(ctx.engine, storageDeps, parseBody(StorageSwitchSchema, req)) }),
    }),
  ];
}
