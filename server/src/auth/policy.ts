import { ForbiddenError } from '@planwarden/engine/errors';
import type { Policy } from '../http/route';
import { ROLE_RANK, type Principal } from '../http/request-context';

/**
 * Whether `principal` may call a route with `policy` (identity-api.md "Rules by role";
 * analysis-api.md "Endpoints": viewer < member < admin < owner; `is_superadmin` is a separate
 * axis for /admin/*). Throws ForbiddenError (403) when authenticated but not allowed.
 */
export function authorize(principal: Principal, policy: Policy): void {
  if (policy === 'public') return;
  if (policy === 'superadmin') {
    if (!principal.isSuperadmin) throw new ForbiddenError('Platform administrators only');
    return;
  }
  if (principal.orgId === null || principal.role === null) throw new ForbiddenError('No organization selected');
  if (ROLE_RANK[principal.role] < ROLE_RANK[policy]) throw new ForbiddenError(`This action needs the ${policy} role`);
}
