import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { DEFAULT_MAX_INPUT_SIZE_MB } from './input-limit';

/**
 * Server configuration: defaults ← `planwarden.config.(json|yaml|yml)` ← environment.
 *
 * Environment variables are `PLANWARDEN_<SECTION>_<FIELD>` in upper snake case
 * (`PLANWARDEN_ANALYSIS_MAX_CONCURRENT_UNITS`); the most used ones also have a short form
 * (`PLANWARDEN_HOST`, `PLANWARDEN_PORT`, `PLANWARDEN_DATA_DIR`). Provider endpoints also honour
 * the providers' own variables `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `OLLAMA_HOST`.
 * Bounds are the spec's (analysis-api.md "Limits", identity-api.md "Platform settings").
 */
/** A list of host names / addresses / CIDR blocks, as an array or a comma-separated string. */
const hostList = z
  .union([z.array(z.string().min(1)), z.string()])
  .default([])
  .transform((v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  );
/** Whether `value` is what dns.Resolver#setServers takes: an IP, `ip:port` or `[ipv6]:port`. */
function isResolverAddress(value: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(value);
  const v4 = /^([\d.]+)(?::(\d{1,5}))?$/.exec(value);
  const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [value, undefined];
  return isIP(host) !== 0 && (port === undefined || (Number(port) >= 1 && Number(port) <= 65535));
}
/** A boolean that also accepts the strings an environment variable carries ('false' stays false). */
const flag = z.union([z.boolean(), z.enum(['true', 'false', '1', '0'])]).transform((v) => v === true || v === 'true' || v === '1');

export const ConfigSchema = z.object({
  data_dir: z.string().default('./data'),
  secret_key: z.string().nullable().default(null),
  server: z
    .object({
      host: z.string().default('127.0.0.1'),
      port: z.coerce.number().int().min(0).max(65535).default(8000),
      max_input_size_mb: z.coerce.number().int().min(1).max(500).default(DEFAULT_MAX_INPUT_SIZE_MB),
      sync_analysis_max_units: z.coerce.number().int().min(0).max(10_000).default(5),
      public_base_url: z.string().nullable().default(null),
      dashboard_base_url: z.string().nullable().default(null),
      trust_proxy: flag.default(false),
    })
    .prefault({}),
  storage: z
    .object({
      backend: z.enum(['sqlite', 'memory', 'docdb']).default('sqlite'),
      uri: z.string().nullable().default(null),
      database: z.string().default('planwarden'),
    })
    .prefault({}),
  auth: z
    .object({
      api_key: z.string().min(1).nullable().default(null),
      /**
       * false (default): with api_key null a request without credentials is the anonymous owner
       * of the default org. true: every non-public route needs a credential. A presented
       * credential is always checked (docs/decisions.md).
       */
      enabled: flag.default(false),
      default_admin_email: z.string().email().nullable().default(null),
      default_admin_password: z.string().nullable().default(null),
    })
    .prefault({}),
  session: z
    .object({
      access_ttl_minutes: z.coerce.number().int().min(1).max(525_600).default(480),
    })
    .prefault({}),
  jwt: z
    .object({
      /** HS256 signing secret; null = generated once into the data dir (memory backend: per process). */
      secret: z.string().min(16).nullable().default(null),
    })
    .prefault({}),
  registration: z
    .object({
      allow_public_org_creation: flag.default(true),
      /**
       * Organizations one account may have created and not yet purged (POST /orgs, registration
       * with org_name; 403 beyond). Superadmins are exempt. Config-file only: not a platform setting.
       */
      max_orgs_per_account: z.coerce.number().int().min(1).max(10_000).default(10),
      terms_version: z.string().min(1).max(32).nullable().default(null),
      terms_url: z.string().url().nullable().default(null),
    })
    .prefault({}),
  /**
   * Platform-wide social sign-in (identity-api.md "Social sign-in settings"; DESIGN.md: the two
   * providers are google and microsoft). Read from config until PATCH /admin/settings exists.
   * `*_issuer` are operator-set (trusted) OpenID issuers; microsoft's `{tenant}` is replaced by
   * `microsoft_tenant` (common, organizations, consumers or a tenant id).
   */
  social_login: z
    .object({
      enabled: flag.default(false),
      allow_signup: flag.default(true),
      allow_auto_link: flag.default(false),
      google_enabled: flag.default(false),
      google_client_id: z.string().min(1).nullable().default(null),
      google_client_secret: z.string().min(1).nullable().default(null),
      google_issuer: z.string().url().default('https://accounts.google.com'),
      microsoft_enabled: flag.default(false),
      microsoft_client_id: z.string().min(1).nullable().default(null),
      microsoft_client_secret: z.string().min(1).nullable().default(null),
      microsoft_tenant: z
        .string()
        .regex(/^[A-Za-z0-9.-]{1,64}$/)
        .default('common'),
      microsoft_issuer: z.string().default('https://login.microsoftonline.com/{tenant}/v2.0'),
    })
    .prefault({}),
  /**
   * Org SSO (identity-api.md "Single sign-on"): lifetime of the `sso_state` cookie and the
   * timeout of each request to an identity provider (discovery, token, JWKS), which also bounds
   * a domain-verification TXT lookup. `dns_servers` (`ip` or `ip:port`, IPv6 as `[addr]:port`)
   * answers those lookups; empty = the system resolver (docs/decisions.md "SSO domain verification").
   */
  sso: z
    .object({
      state_ttl_minutes: z.coerce.number().int().min(1).max(60).default(10),
      http_timeout_seconds: z.coerce.number().min(0.5).max(60).default(10),
      dns_servers: hostList.pipe(z.array(z.string().refine(isResolverAddress, 'an IP address with an optional port, e.g. 10.0.0.2:53 or [2001:db8::1]:53'))),
    })
    .prefault({}),
  /**
   * Brute-force protection (identity-api.md "Authentication", "Limits"; docs/decisions.md
   * "Brute force"): the five thresholds. Counters live in the store, shared by every replica.
   * Reaching a threshold answers 429 with Retry-After for 2^(failures - threshold) minutes,
   * capped at `max_backoff_minutes`. `enabled` is config-file only.
   */
  rate_limit: z
    .object({
      enabled: flag.default(true),
      /** Failed password logins per account from one source (address, IPv6 /64) before backoff. */
      failed_logins_per_account: z.coerce.number().int().min(1).max(1000).default(5),
      /** Failed second-factor codes per account (any source) before backoff. */
      second_factor_attempts_per_account: z.coerce.number().int().min(1).max(1000).default(5),
      /** Failed credentials of every type (password, code, unknown API key, forged cookie) per source. */
      failed_credentials_per_ip: z.coerce.number().int().min(1).max(100_000).default(50),
      /** Failures are forgotten this long after the last one (or after a block ends). */
      window_minutes: z.coerce.number().int().min(1).max(1440).default(15),
      /** Ceiling of the doubling backoff. */
      max_backoff_minutes: z.coerce.number().int().min(1).max(1440).default(60),
    })
    .prefault({}),
  analysis: z
    .object({
      max_concurrent_units: z.coerce.number().int().min(1).max(32).default(4),
      llm_timeout_seconds: z.coerce.number().min(5).max(600).default(120),
      llm_max_attempts: z.coerce.number().int().min(1).max(6).default(3),
      llm_retry_backoff_seconds: z.coerce.number().min(0.1).max(30).default(1),
      llm_max_output_tokens: z.coerce.number().int().min(512).max(32_000).default(4096),
      /** identity-api.md "Platform settings" analysis: the prompt-injection scanner (engine/src/codehost/injection-scanner.ts). */
      injection_scan_enabled: flag.default(true),
      injection_scan_semantic: flag.default(false),
      /** What an injection finding does to a pull request's commit status: off / review (pending) / fail (failure). */
      injection_scan_gate: z.enum(['off', 'review', 'fail']).default('review'),
    })
    .prefault({}),
  jobs: z
    .object({
      stuck_timeout_minutes: z.coerce.number().int().min(5).max(1440).default(60),
      sweep_interval_hours: z.coerce.number().min(1).max(168).default(1),
      lease_seconds: z.coerce.number().int().min(5).max(3600).default(60),
    })
    .prefault({}),
  llm: z
    .object({
      openai_base_url: z.string().nullable().default(null),
      anthropic_base_url: z.string().nullable().default(null),
      ollama_host: z.string().nullable().default(null),
    })
    .prefault({}),
  /** Rule health and the calibration loop (analysis-api.md "Rule health entry" `settings`; docs/decisions.md). */
  rule_health: z
    .object({
      calibration_enabled: flag.default(true),
      min_samples: z.coerce.number().int().min(1).max(1000).default(5),
      severity_ceiling: z.enum(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO']).default('CRITICAL'),
      trusted_only: flag.default(true),
    })
    .prefault({}),
  /** Metering (analysis-api.md "Usage document", Limits "Demo quota"). */
  usage: z
    .object({
      /** A cloud deployment: free plans get `demo_analyses` lifetime analyses, then 402. */
      cloud: flag.default(false),
      demo_analyses: z.coerce.number().int().min(0).max(1_000_000).default(100),
    })
    .prefault({}),
  logging: z
    .object({
      /** identity-api.md spells the level `warning`; `warn` is accepted too and means the same. */
      level: z
        .enum(['debug', 'info', 'warn', 'warning', 'error', 'silent'])
        .default('info')
        .transform((l) => (l === 'warning' ? 'warn' : l)),
      /** `pretty`: one human-readable line per event; `json`: one JSON object per line (pino). */
      format: z.enum(['pretty', 'json']).default('pretty'),
    })
    .prefault({}),
  /**
   * Outbound requests to URLs a tenant sets (review webhook, notification channels, run-task
   * plan downloads and callbacks) go through one egress policy (docs/decisions.md): loopback,
   * private, link-local, CGNAT and metadata addresses are refused unless the host or address
   * is on `allowlist` (host names, IPs or CIDR blocks) set by the operator.
   */
  egress: z
    .object({
      allowlist: z
        .union([z.array(z.string().min(1)), z.string()])
        .default([])
        .transform((v) =>
          typeof v === 'string'
            ? v
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean)
            : v,
        ),
    })
    .prefault({}),
  /**
   * The platform GitHub App (identity-api.md "Platform settings" codehost; analysis-api.md
   * "Code-hosting integration"). `api_base_url` is operator-set and trusted (GitHub Enterprise
   * Server: `https://host/api/v3`); `mention_prefix` is what reply commands start with (`@planwarden`).
   */
  codehost: z
    .object({
      app_id: z.union([z.string(), z.number()]).transform(String).nullable().default(null),
      private_key: z.string().nullable().default(null),
      webhook_secret: z.string().nullable().default(null),
      api_base_url: z.string().url().default('https://api.github.com'),
      /** Where the manifest flow sends the browser (GitHub Enterprise Server: `https://host`). */
      web_base_url: z.string().url().default('https://github.com'),
      mention_prefix: z.string().min(1).max(64).default('planwarden'),
    })
    .prefault({}),
  /**
   * Notification channels (analysis-api.md "Limits"): delivery timeout and channel quota.
   * `egress.allowlist` here is an alias merged into the one `egress.allowlist` policy.
   */
  notifications: z
    .object({
      timeout_seconds: z.coerce.number().min(0.1).max(60).default(5),
      max_channels_per_org: z.coerce.number().int().min(1).max(1000).default(20),
      /** Aliases of `egress.allowlist` (the spec's `allowed_hosts` spelling accepted too). */
      egress: z.object({ allowlist: hostList, allowed_hosts: hostList }).prefault({}),
    })
    .prefault({}),
  /**
   * The org-template sandbox (engine/src/report/template-sandbox*.ts): worker threads, renders
   * one lane may run at once, and renders waiting per lane and in all (429 with Retry-After
   * beyond). Despite the `_per_org` names (kept for existing config files), a lane is the account
   * responsible for a render, across all its orgs (template-sandbox-lane.ts).
   */
  templates: z
    .object({
      pool_size: z.coerce.number().int().min(1).max(64).default(2),
      max_concurrent_per_org: z.coerce.number().int().min(1).max(64).default(1),
      max_queued_per_org: z.coerce.number().int().min(1).max(1000).default(4),
      max_queued: z.coerce.number().int().min(1).max(10_000).default(64),
    })
    .prefault({}),
  /**
   * MCP sessions held by this process (server/src/mcp/session-registry.ts): in all, per org and
   * per principal. A full org or principal gives up its oldest idle session; one org never
   * holds more than `max_sessions - 1`. Config-file only (identity-api.md "Platform settings").
   */
  mcp: z
    .object({
      max_sessions: z.coerce.number().int().min(2).max(100_000).default(1000),
      max_sessions_per_org: z.coerce.number().int().min(1).max(100_000).default(100),
      max_sessions_per_principal: z.coerce.number().int().min(1).max(100_000).default(20),
    })
    .prefault({}),
});
export type Config = z.infer<typeof ConfigSchema>;
export type AnalysisSettings = Config['analysis'];

const SHORT_FORMS: Record<string, [string, string] | [string]> = {
  PLANWARDEN_HOST: ['server', 'host'],
  PLANWARDEN_PORT: ['server', 'port'],
  PLANWARDEN_DATA_DIR: ['data_dir'],
  PLANWARDEN_SECRET_KEY: ['secret_key'],
};

const PROVIDER_VARIABLES: Record<string, [string, string]> = {
  OPENAI_BASE_URL: ['llm', 'openai_base_url'],
  ANTHROPIC_BASE_URL: ['llm', 'anthropic_base_url'],
  OLLAMA_HOST: ['llm', 'ollama_host'],
};

type Raw = Record<string, unknown>;

function setPath(target: Raw, path: string[], value: unknown): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Raw;
  }
  node[path[path.length - 1]] = value;
}

/** Reads `planwarden.config.json|yaml|yml` from `dir`, or the file named by PLANWARDEN_CONFIG. */
function readConfigFile(env: NodeJS.ProcessEnv, dir: string): Raw {
  const candidates = env.PLANWARDEN_CONFIG
    ? [resolve(env.PLANWARDEN_CONFIG)]
    : ['planwarden.config.json', 'planwarden.config.yaml', 'planwarden.config.yml'].map((f) => resolve(dir, f));
  for (const file of candidates) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const parsed: unknown = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
    if (parsed === null || typeof parsed !== 'object') throw new Error(`config file ${file} must hold an object`);
    return parsed as Raw;
  }
  return {};
}

/** Applies PLANWARDEN_* (and the providers' standard) variables over `raw`. */
function applyEnvironment(raw: Raw, env: NodeJS.ProcessEnv): void {
  const shape = ConfigSchema.shape as Record<string, unknown>;
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (PROVIDER_VARIABLES[name]) {
      setPath(raw, PROVIDER_VARIABLES[name], value);
      continue;
    }
    if (SHORT_FORMS[name]) {
      setPath(raw, SHORT_FORMS[name], value);
      continue;
    }
    if (!name.startsWith('PLANWARDEN_')) continue;
    const rest = name.slice('PLANWARDEN_'.length).toLowerCase();
    const section = Object.keys(shape).find((s) => rest.startsWith(`${s}_`) && s !== 'data_dir' && s !== 'secret_key');
    if (!section) continue;
    const field = rest.slice(section.length + 1);
    setPath(raw, [section, field], value === '' || value === 'null' ? null : value);
  }
}

/**
 * Loads the configuration. Throws a readable Error naming the offending field when a value is
 * out of range, so a misconfigured server refuses to start instead of running half-configured.
 */
export function loadConfig(options: { env?: NodeJS.ProcessEnv; cwd?: string; overrides?: Raw } = {}): Config {
  const env = options.env ?? process.env;
  const raw = readConfigFile(env, options.cwd ?? process.cwd());
  applyEnvironment(raw, env);
  if (options.overrides) mergeInto(raw, options.overrides);
  const result = ConfigSchema.safeParse(raw);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${issues}`);
  }
  return result.data;
}

function mergeInto(target: Raw, source: Raw): void {
  for (const [key, value] of Object.entries(source)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      mergeInto(target[key] as Raw, value as Raw);
    } else {
      target[key] = value;
    }
  }
}
