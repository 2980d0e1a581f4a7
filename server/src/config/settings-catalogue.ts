import { z } from 'zod';

/**
 * The fields PATCH /admin/settings may change (identity-api.md "Platform settings"), by flat
 * name `<section>_<field>`, with their value schemas (the spec's bounds) and, for fields the
 * file/environment configuration does not carry, their hardcoded defaults. Fields the
 * configuration does carry take its value as the bootstrap default (docs/decisions.md
 * "Platform settings layers").
 */
export interface SettingField {
  readonly section: string;
  readonly field: string;
  readonly schema: z.ZodType;
  /** Write-only: never returned; `secrets_set` reports whether one is stored. */
  readonly secret?: boolean;
  /** The hardcoded default when the configuration has no such field. */
  readonly fallback?: unknown;
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const num = (min: number, max: number) => z.number().min(min).max(max);
const httpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/\S+$/, 'must be an http(s):// URL');
const text = (max: number) => z.string().min(1).max(max);
const bool = z.boolean();

/** Covered sections in the order the document lists them. */
const SECTIONS: Record<string, Record<string, Omit<SettingField, 'section' | 'field'>>> = {
  logging: { level: { schema: z.enum(['debug', 'info', 'warning', 'error']) } },
  registration: {
    allow_public_org_creation: { schema: bool },
    terms_version: { schema: text(32).nullable() },
    terms_url: { schema: httpUrl.nullable() },
    privacy_url: { schema: httpUrl.nullable(), fallback: null },
  },
  social_login: {
    enabled: { schema: bool },
    allow_signup: { schema: bool },
    allow_auto_link: { schema: bool },
    google_enabled: { schema: bool },
    google_client_id: { schema: text(512).nullable() },
    google_client_secret: { schema: text(4096), secret: true },
    microsoft_enabled: { schema: bool },
    microsoft_client_id: { schema: text(512).nullable() },
    microsoft_client_secret: { schema: text(4096), secret: true },
    microsoft_tenant: { schema: z.string().regex(/^[A-Za-z0-9.-]{1,64}$/, 'common, organizations, consumers or a tenant id') },
  },
  server: {
    max_input_size_mb: { schema: int(1, 500) },
    sync_analysis_max_units: { schema: int(0, 10_000) },
    public_base_url: { schema: httpUrl.nullable() },
    dashboard_base_url: { schema: httpUrl.nullable() },
  },
  session: { access_ttl_minutes: { schema: int(1, 525_600) } },
  retention: {
    telemetry_days: { schema: int(1, 365), fallback: 30 },
    audit_days: { schema: int(30, 3650), fallback: 730 },
    finding_low_medium_days: { schema: int(1, 3650), fallback: 180 },
    finding_high_critical_days: { schema: int(1, 3650), fallback: 730 },
    resource_content_days: { schema: int(1, 3650), fallback: 90 },
    feedback_days: { schema: int(1, 3650), fallback: 730 },
    sweep_enabled: { schema: bool, fallback: true },
    sweep_interval_hours: { schema: int(1, 168), fallback: 24 },
  },
  jobs: {
    stuck_timeout_minutes: { schema: int(5, 1440) },
    sweep_enabled: { schema: bool, fallback: true },
    sweep_interval_hours: { schema: num(1, 168) },
  },
  analysis: {
    max_concurrent_units: { schema: int(1, 32) },
    llm_timeout_seconds: { schema: num(5, 600) },
    llm_max_attempts: { schema: int(1, 6) },
    llm_retry_backoff_seconds: { schema: num(0.1, 30) },
    llm_max_output_tokens: { schema: int(512, 32_000) },
    injection_scan_enabled: { schema: bool },
    injection_scan_semantic: { schema: bool },
    injection_scan_gate: { schema: z.enum(['off', 'review', 'fail']) },
  },
  rate_limit: {
    failed_logins_per_account: { schema: int(1, 1000) },
    second_factor_attempts_per_account: { schema: int(1, 1000) },
    failed_credentials_per_ip: { schema: int(1, 100_000) },
    window_minutes: { schema: int(1, 1440) },
    max_backoff_minutes: { schema: int(1, 1440) },
  },
  org_offboarding: { grace_period_days: { schema: int(1, 3650), fallback: 30 } },
  codehost: {
    app_id: { schema: z.union([text(64), z.number().int().positive().transform(String)]).nullable() },
    private_key: { schema: text(16_384), secret: true },
    webhook_secret: { schema: text(1024), secret: true },
  },
};

export const SETTING_SECTIONS: readonly string[] = Object.keys(SECTIONS);

/** Every covered field by flat name. */
export const SETTING_FIELDS: ReadonlyMap<string, SettingField> = new Map(
  Object.entries(SECTIONS).flatMap(([section, fields]) =>
    Object.entries(fields).map(([field, spec]) => [`${section}_${field}`, { section, field, ...spec }] as const),
  ),
);

/** identity-api.md "Platform settings": sections the endpoint refuses, with the reason the document gives. */
export const EXCLUDED_SECTIONS: readonly { section: string; reason: string }[] = [
  { section: 'storage', reason: 'file/environment driven (switch at runtime with POST /admin/storage/switch)' },
  { section: 'cors', reason: 'file/environment driven' },
  { section: 'auth', reason: 'file/environment driven' },
  { section: 'jwt', reason: 'file/environment driven' },
  { section: 'two_factor', reason: 'file/environment driven' },
  { section: 'llm', reason: 'file/environment driven' },
  { section: 'deployment', reason: "identifies the operator's cloud versus self-hosted" },
  { section: 'mcp', reason: 'fixed for the life of the process: read before the application object exists' },
  { section: 'telemetry', reason: 'fixed for the life of the process: read before the application object exists' },
];

/**
 * The section a flat name belongs to, for the 422 of an unknown field: a covered field,
 * `rate_limit_enabled` (config-file only), a field of an excluded section, or nothing.
 */
export function classifyField(name: string): { kind: 'field'; spec: SettingField } | { kind: 'excluded'; section: string } | { kind: 'unknown' } {
  const spec = SETTING_FIELDS.get(name);
  if (spec) return { kind: 'field', spec };
  const excluded = EXCLUDED_SECTIONS.find((s) => name === s.section || name.startsWith(`${s.section}_`));
  return excluded ? { kind: 'excluded', section: excluded.section } : { kind: 'unknown' };
}
