import { ConflictError, ValidationError } from '@planwarden/engine/core/errors';
import type { PlatformSettingsDoc, PlatformSettingsStore } from '@planwarden/engine/admin/settings-store';
import type { SecretBox } from '@planwarden/engine/llm/secret-box';
import { ConfigSchema, type Config } from './config';
import { classifyField, EXCLUDED_SECTIONS, SETTING_FIELDS, SETTING_SECTIONS, type SettingField } from './settings-catalogue';

/** Where an effective value came from (docs/decisions.md "Platform settings layers"). */
export type SettingSource = 'default' | 'bootstrap' | 'override';

type Section = Record<string, unknown>;
type RetentionSettings = {
  telemetry_days: number;
  audit_days: number;
  finding_low_medium_days: number;
  finding_high_critical_days: number;
  resource_content_days: number;
  feedback_days: number;
  sweep_enabled: boolean;
  sweep_interval_hours: number;
};
const HARDCODED = ConfigSchema.parse({}) as unknown as Record<string, Section>;
/** The config spells `warning` as `warn` (config.ts); the document uses the spec's spelling. */
const toSpec = (name: string, v: unknown) => (name === 'logging_level' && v === 'warn' ? 'warning' : v);
const toConfig = (name: string, v: unknown) => (name === 'logging_level' && v === 'warning' ? 'warn' : v);

/**
 * Platform settings at runtime (identity-api.md "Platform settings", "Platform settings
 * document"): effective = hardcoded default ← file/environment (the bootstrap default) ←
 * the overrides document in the store. `live` is a view of the configuration whose covered
 * sections read the overrides, so every consumer holding it sees a change on its next read.
 * `refresh()` (run at the start of every request and on a background tick) re-reads the
 * stored document and re-derives only when its version moved: one small read per request, so
 * a PATCH taken by one replica applies on the next request of every other.
 */
export class SettingsService {
  readonly live: Config;
  #doc: PlatformSettingsDoc = { settings_id: 'platform', version: 0, overrides: {}, secrets: {}, updated_by: null, updated_at: null };
  /** Overrides (secrets opened) by section → field, in config spelling. */
  #bySection = new Map<string, Section>();
  #inflight: Promise<void> | null = null;
  readonly #listeners: ((changed: ReadonlySet<string>) => void)[] = [];

  constructor(
    private readonly base: Config,
    private readonly store: PlatformSettingsStore,
    private readonly box: SecretBox,
  ) {
    const overrides = this.#bySection;
    this.live = new Proxy(base, {
      get(target, key, receiver) {
        const section = Reflect.get(target, key, receiver) as unknown;
        const over = typeof key === 'string' ? overrides.get(key) : undefined;
        return over ? { ...(section as Section), ...over } : section;
      },
    });
  }

  /** Called with the flat names whose effective value may have changed after each refresh. */
  onChange(listener: (changed: ReadonlySet<string>) => void): void {
    this.#listeners.push(listener);
  }

  /** Re-reads the stored document when its version moved; concurrent calls share one read. */
  refresh(): Promise<void> {
    this.#inflight ??= this.store
      .get()
      .then((doc) => this.#adopt(doc))
      .finally(() => {
        this.#inflight = null;
      });
    return this.#inflight;
  }

  #adopt(doc: PlatformSettingsDoc): void {
    if (doc.version === this.#doc.version) return;
    const changed = new Set([
      ...Object.keys(this.#doc.overrides),
      ...Object.keys(this.#doc.secrets),
      ...Object.keys(doc.overrides),
      ...Object.keys(doc.secrets),
    ]);
    const next = new Map<string, Section>();
    const put = (name: string, value: unknown) => {
      const spec = SETTING_FIELDS.get(name);
      if (!spec) return; // a field a newer release wrote and this one does not know
      const section = next.get(spec.section) ?? {};
      section[spec.field] = toConfig(name, value);
      next.set(spec.section, section);
    };
    for (const [name, value] of Object.entries(doc.overrides)) put(name, value);
    for (const [name, sealed] of Object.entries(doc.secrets)) put(name, this.box.open(sealed));
    this.#bySection.clear();
    for (const [k, v] of next) this.#bySection.set(k, v);
    this.#doc = doc;
    for (const listener of this.#listeners) listener(changed);
  }

  /** The effective value of one covered field and its layer. */
  #resolve(spec: SettingField): { value: unknown; source: SettingSource } {
    const over = this.#bySection.get(spec.section);
    if (over && spec.field in over) return { value: over[spec.field], source: 'override' };
    const baseSection = (this.base as unknown as Record<string, Section | undefined>)[spec.section];
    if (baseSection && spec.field in baseSection) {
      const value = baseSection[spec.field];
      const hard = HARDCODED[spec.section]?.[spec.field];
      return { value, source: JSON.stringify(value) === JSON.stringify(hard) ? 'default' : 'bootstrap' };
    }
    return { value: spec.fallback ?? null, source: 'default' };
  }

  /** One covered field's effective value (config spelling), e.g. `value('retention_audit_days')`. */
  value<T = unknown>(name: string): T {
    const spec = SETTING_FIELDS.get(name);
    if (!spec) throw new Error(`unknown setting ${name}`);
    return this.#resolve(spec).value as T;
  }

  /** The effective retention section (identity-api.md "Platform settings" retention). */
  retention(): RetentionSettings {
    return this.#section('retention') as RetentionSettings;
  }

  /** `org_offboarding.grace_period_days`. */
  gracePeriodDays(): number {
    return this.value<number>('org_offboarding_grace_period_days');
  }

  #section(section: string): Section {
    const out: Section = {};
    for (const spec of SETTING_FIELDS.values()) if (spec.section === section) out[spec.field] = this.#resolve(spec).value;
    return out;
  }

  /**
   * GET /admin/settings: `{effective, overrides, sources, secrets_set, excluded_sections,
   * updated_by, updated_at}`. `effective` is nested by section without the write-only fields;
   * `overrides` maps each overridden non-secret flat name to its value; `sources` gives each
   * flat name's layer (default / bootstrap / override).
   */
  document() {
    const effective: Record<string, Section> = Object.fromEntries(SETTING_SECTIONS.map((s) => [s, {}]));
    const sources: Record<string, SettingSource> = {};
    const secretsSet: Record<string, boolean> = {};
    for (const [name, spec] of SETTING_FIELDS) {
      const { value, source } = this.#resolve(spec);
      if (spec.secret) {
        secretsSet[name] = value !== null && value !== undefined;
        continue;
      }
      effective[spec.section][spec.field] = toSpec(name, value);
      sources[name] = source;
    }
    return {
      effective,
      overrides: Object.fromEntries(Object.entries(this.#doc.overrides).map(([k, v]) => [k, toSpec(k, v)])),
      sources,
      secrets_set: secretsSet,
      excluded_sections: EXCLUDED_SECTIONS,
      updated_by: this.#doc.updated_by,
      updated_at: this.#doc.updated_at,
    };
  }

  /**
   * PATCH /admin/settings: validates the whole flat body first (ValidationError 422 naming the
   * field: unknown, excluded section, `rate_limit_enabled`, out of range), then writes the
   * overrides document with an optimistic version check (retried on a concurrent write).
   * null clears an override. Returns the flat before/after of the changed fields for the audit
   * event (secrets as `'[set]'`/`null`), or null when nothing changed.
   */
  async patch(body: unknown, actor: string | null, now: string): Promise<{ before: Section; after: Section } | null> {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ValidationError('body: expected an object of flat <section>_<field> settings');
    const changes = new Map<string, { spec: SettingField; value: unknown }>();
    for (const [name, raw] of Object.entries(body as Section)) {
      const found = classifyField(name);
      if (name === 'rate_limit_enabled') throw new ValidationError(`${name}: rate_limit.enabled is config-file only`);
      if (found.kind === 'excluded') throw new ValidationError(`${name}: section '${found.section}' is not changeable through this endpoint`);
      if (found.kind === 'unknown') throw new ValidationError(`${name}: unknown setting`);
      if (raw === null) {
        changes.set(name, { spec: found.spec, value: null });
        continue;
      }
      const parsed = found.spec.schema.safeParse(raw);
      if (!parsed.success) throw new ValidationError(`${name}: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
      changes.set(name, { spec: found.spec, value: parsed.data });
    }
    for (let attempt = 0; ; attempt += 1) {
      const doc = await this.store.get();
      const overrides = { ...doc.overrides };
      const secrets = { ...doc.secrets };
      const before: Section = {};
      const after: Section = {};
      for (const [name, { spec, value }] of changes) {
        const target = spec.secret ? secrets : overrides;
        const old = spec.secret ? (name in secrets ? '[set]' : null) : (overrides[name] ?? null);
        if (value === null) delete target[name];
        else target[name] = spec.secret ? this.box.seal(String(value)) : value;
        const now = spec.secret ? (value === null ? null : '[set]') : value;
        if (JSON.stringify(old) !== JSON.stringify(now) || spec.secret) {
          before[name] = old;
          after[name] = now;
        }
      }
      try {
        const stored = await this.store.replace(doc.version, { overrides, secrets, updated_by: actor, updated_at: now });
        this.#adopt(stored);
        return Object.keys(after).length > 0 ? { before, after } : null;
      } catch (error) {
        if (!(error instanceof ConflictError) || attempt >= 4) throw error;
      }
    }
  }
}
