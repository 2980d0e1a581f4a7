/** identity-api.md "Rules by role": viewer < member < admin < owner. */
export type OrgRole = 'viewer' | 'member' | 'admin' | 'owner';
export const ORG_ROLES: readonly OrgRole[] = ['viewer', 'member', 'admin', 'owner'];
export const ORG_ROLE_RANK: Record<OrgRole, number> = { viewer: 0, member: 1, admin: 2, owner: 3 };

/** TOTP state of an account (identity-api.md "States and transitions", 2FA rows). Secrets are sealed. */
export interface TwoFactorState {
  enabled: boolean;
  /** Sealed (SecretBox) TOTP secret of the confirmed enrollment. */
  secret: string | null;
  /** Sealed secret of an enrollment not yet confirmed. */
  pending_secret: string | null;
  /** SHA-256 hex of each unused recovery code. */
  recovery_codes: string[];
  /**
   * The RFC 6238 time step (Unix seconds / 30) of the last TOTP code accepted; a code of this
   * step or an earlier one is refused (RFC 6238 §5.2, one use per code). Absent before the
   * first accepted code.
   */
  last_totp_step?: number | null;
}

/** An account (platform-wide, not tenant data). */
export interface UserDoc {
  _id?: string;
  user_id: string;
  /** Lower-cased. */
  email: string;
  name: string | null;
  /** `scrypt$N$r$p$salt$hash`, null for accounts not created locally. */
  password_hash: string | null;
  auth_provider: 'local' | 'sso' | 'social';
  is_active: boolean;
  is_superadmin: boolean;
  two_factor: TwoFactorState;
  /** Incremented by every session revocation; a session token carries the epoch it was minted in. */
  session_epoch: number;
  sessions_revoked_at: string | null;
  /** The org last scoped (login, switch, invite acceptance, departure). */
  last_org_id: string | null;
  created_at: string;
  updated_at: string;
}

/** A user's membership of one org (identity-api.md "Member entry"). */
export interface MembershipDoc {
  _id?: string;
  org_id: string;
  user_id: string;
  role: OrgRole;
  is_active: boolean;
  /**
   * Set when an org admin added the account by e-mail (POST /orgs/{org_id}/members): the
   * account never chose this org, so the org does not administer it (member-service resets).
   */
  added_by_email?: boolean;
  /**
   * True when this org's own flow created the account together with this membership
   * (registration into the org, an invitation redeemed by signing up, SCIM or SSO provisioning
   * a new account); false when the account existed before it joined. Only such an org may
   * administer the account (account-stewardship.ts). Written on every membership since it was
   * introduced (MembershipStore.insert defaults it to false); absent only on older documents,
   * which account-stewardship.ts judges by their timestamps.
   */
  created_account?: boolean;
  created_at: string;
  updated_at: string;
}

/** A service-account key; only the SHA-256 of the raw key is stored. */
export interface ApiKeyDoc {
  _id?: string;
  org_id: string;
  key_id: string;
  key_hash: string;
  role: OrgRole;
  name: string | null;
  ip_allowlist: string[] | null;
  is_active: boolean;
  created_by: string | null;
  created_at: string;
  revoked_at: string | null;
  /** When the key last authenticated a request, at most a minute stale (key-service.ts recordKeyUse); absent on keys made before it was recorded. */
  last_used_at?: string | null;
}

/** An invitation; only the SHA-256 of its token is stored. */
export interface InviteDoc {
  _id?: string;
  org_id: string;
  invite_id: string;
  token_hash: string;
  role: OrgRole;
  /** Lower-cased recipient; null = open invitation (a bearer link). */
  email: string | null;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked: boolean;
  /** Users who redeemed it (an addressed invitation is consumed by its one recipient). */
  accepted_by: string[];
}

export interface TeamDoc {
  _id?: string;
  org_id: string;
  team_id: string;
  name: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface TeamMemberDoc {
  _id?: string;
  org_id: string;
  team_id: string;
  user_id: string;
  added_at: string;
}

/**
 * A brute-force failure counter (server/src/auth/brute-force.ts): `key` is the SHA-256 of the
 * counter's name and subject (source address, account), so no e-mail or address is stored.
 */
export interface AuthThrottleDoc {
  _id?: string;
  key: string;
  /** Failures since the record started; it restarts once `expires_at` has passed. */
  failures: number;
  /**
   * Attempts admitted in the current phase, in flight or failed (throttle-store.ts `reserve`):
   * none is admitted while it is at the threshold. A block resets it to threshold - 1, so one
   * attempt at a time follows a block. Absent on records written before reservations.
   */
  used?: number;
  /**
   * No attempt is admitted before this instant (ISO): the end of the current block, or the
   * record's start when it never blocked. Null only on records written before reservations.
   */
  blocked_until: string | null;
  /** After this instant the record counts as absent (TTL-swept). */
  expires_at: string;
  updated_at: string;
}

/** A JWT id that may no longer be used: a logged-out session, or a redeemed mfa_token. */
export interface RevokedTokenDoc {
  _id?: string;
  /** The token's `jti`. */
  token_id: string;
  kind: 'session' | 'mfa';
  user_id: string;
  /** The token's own expiry; afterwards the record is useless and TTL-swept. */
  expires_at: string;
  created_at: string;
}
