import { z } from 'zod';
import { isAllowlistEntry } from '../auth/ip';
import { instantQuery, pageQuery } from './shared';

/** identity-api.md "Limits": passwords of at least 8 characters. */
const Password = z.string().min(8).max(1024);
const Email = z.string().trim().toLowerCase().pipe(z.email()).pipe(z.string().max(320));
const Role = z.enum(['viewer', 'member', 'admin', 'owner']);
/** Member and invitation roles: owner is refused with 422 (ownership transfer is separate). */
const NonOwnerRole = z.enum(['viewer', 'member', 'admin']);

export const RegisterSchema = z.object({
  email: Email,
  password: Password,
  name: z.string().max(200).nullish(),
  org_name: z.string().trim().min(1).max(200).nullish(),
  invite_token: z.string().min(1).max(512).nullish(),
  accepted_terms_version: z.string().max(32).nullish(),
});
export const LoginSchema = z.object({ email: z.string().trim().min(1).max(320), password: z.string().min(1).max(1024) });
export const SecondFactorSchema = z.object({ mfa_token: z.string().min(1).max(4096), code: z.string().trim().min(1).max(64) });
export const ProfileSchema = z.object({ name: z.string().max(200).nullable() });
export const PasswordChangeSchema = z.object({ current_password: z.string().min(1).max(1024), new_password: Password });
export const CodeSchema = z.object({ code: z.string().trim().min(1).max(64) });
export const CurrentPasswordSchema = z.object({ current_password: z.string().min(1).max(1024) });
export const SwitchSchema = z.object({ org_id: z.string().min(1).max(128) });

export const CreateKeySchema = z.object({
  role: Role.default('member'),
  name: z.string().max(200).nullable().default(null),
  ip_allowlist: z.array(z.string().refine(isAllowlistEntry, 'not an IP address or CIDR block')).max(100).nullable().default(null),
});

export const CreateOrgSchema = z.object({ name: z.string().trim().min(1).max(200) });
export const AddMemberSchema = z.object({ email: Email, role: NonOwnerRole.default('member') });
export const UpdateMemberSchema = z.object({ role: NonOwnerRole.optional(), is_active: z.boolean().optional() }).strict();

export const TeamSchema = z.object({ name: z.string().trim().min(1).max(200) });
export const TeamPatchSchema = z.object({ name: z.string().trim().min(1).max(200).optional() }).strict();
export const TeamMemberSchema = z.object({ user_id: z.string().min(1).max(128) });

export const CreateInviteSchema = z.object({ role: NonOwnerRole.default('member'), email: Email.nullish() });

export const DaysQuery = z.object({ days: z.coerce.number().int().min(1).max(365).default(7) });
export const SpanQuery = z.object({
  type: z.enum(['request', 'ingest', 'analysis']).optional(),
  user_id: z.string().optional(),
  key_id: z.string().optional(),
  ...pageQuery(1000, 100),
});
const AuditFilters = {
  action: z.string().optional(),
  actor_id: z.string().optional(),
  target_type: z.string().optional(),
  since: instantQuery('start').optional(),
  until: instantQuery('end').optional(),
};
export const AuditQuery = z.object({ ...AuditFilters, ...pageQuery(1000, 100) });
export const AuditExportQuery = z.object({ ...AuditFilters, ...pageQuery(10_000, 1000), format: z.enum(['json', 'csv']).default('json') });
/** GET /admin/audit (and its export) also filter by `org_id` (identity-api.md "Platform administration"). */
export const AdminAuditScope = { org_id: z.string().min(1).optional() };

export const SuperadminSchema = z.object({ enabled: z.boolean() });
export const LockSchema = z.object({ locked: z.boolean() });
export const TwoFactorPolicySchema = z.object({ require_2fa: z.boolean() });
export const AdminUserPatchSchema = z.object({ name: z.string().max(200).nullable().optional(), is_active: z.boolean().optional() }).strict();
