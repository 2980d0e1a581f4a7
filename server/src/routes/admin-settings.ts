import { z } from 'zod';
import { recordAudit } from '@planwarden/engine/audit/record';
import { identityCtx } from '../auth/identity';
import type { SettingsService } from '../config/settings-service';
import { route, type RouteDef } from '../http/route';
import { NO_QUERY } from './shared';

/** OpenAPI shape of the PATCH body: flat `<section>_<field>` names (validated by SettingsService.patch). */
const SettingsPatchSchema = z.record(z.string(), z.unknown());

/**
 * identity-api.md "Platform administration": GET/PATCH /admin/settings (superadmin). PATCH
 * answers the document as GET does and records settings.update (target platform_settings)
 * with the flat before/after of the changed fields, secrets given as `[set]`.
 */
export function adminSettingsRoutes(settings: SettingsService): RouteDef[] {
  return [
    route({
      method: 'get',
      path: '/admin/settings',
      policy: 'superadmin',
      body: 'none',
      query: NO_QUERY,
      handler: async () => ({ body: settings.document() }),
    }),
    route({
      method: 'patch',
      path: '/admin/settings',
      policy: 'superadmin',
      body: 'json',
      requestBody: SettingsPatchSchema,
      query: NO_QUERY,
      handler: async (ctx, req) => {
        const ictx = identityCtx(ctx);
        const actor = ictx.actor.email ?? ictx.actor.userId ?? ictx.actor.keyId;
        const diff = await settings.patch(req.body ?? {}, actor, ctx.now().toISOString());
        if (diff) {
          await recordAudit(ictx, {
            orgId: null,
            action: 'settings.update',
            targetType: 'platform_settings',
            targetId: 'platform',
            before: diff.before,
            after: diff.after,
          });
        }
        return { body: settings.document() };
      },
    }),
  ];
}
