import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { Logger } from '@planwarden/engine/core/logger';

/** identity-api.md "Rules by role": viewer < member < admin < owner. */
export type Role = 'viewer' | 'member' | 'admin' | 'owner';
export const ROLE_RANK: Record<Role, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** Who is calling (identity-api.md "Credential shapes"). */
export interface Principal {
  readonly kind: 'anonymous' | 'bootstrap_key' | 'api_key' | 'session';
  readonly orgId: string | null;
  readonly role: Role | null;
  readonly isSuperadmin: boolean;
  readonly userId: string | null;
  readonly keyId: string | null;
  /** The account's e-mail (sessions only). */
  readonly email?: string | null;
  /** Whether the session's account has confirmed 2FA (re-read on every request). */
  readonly twoFactorEnabled?: boolean;
  /** The org whose SSO connection established this session (it satisfies that org's require_2fa). */
  readonly ssoOrgId?: string | null;
}

/** Built once per request by the auth middleware (STYLE.md "RequestContext"). */
export interface RequestContext {
  readonly principal: Principal;
  /** The org every tenant call is scoped to; comes from the principal, never from the body. */
  readonly orgId: string;
  readonly requestId: string;
  readonly log: Logger;
  readonly now: () => Date;
  readonly engine: EngineContext;
  /** The caller's address (leftmost X-Forwarded-For hop behind a trusted proxy). */
  readonly ip?: string | null;
}
