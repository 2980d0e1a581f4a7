import { SEVERITY_ORDER, type Severity } from '../core/payload';
import type { EngineContext } from '../context/engine-context';
import { builtinRuleEntries } from '../custom-rules/custom-builtin';
import { verdictTallies, type VerdictTally } from './feedback-counts';

/**
 * Rule health (analysis-api.md "Rule health entry") and the calibration text that carries
 * trusted reviewer verdicts into later analysis prompts (docs/decisions.md "calibration").
 * Both read the org's verdict counts from its counter document (feedback-counts.ts), never the
 * whole feedback log: an answer costs one document plus an indexed read per rule it quotes.
 */

/** The `settings` object of GET /rule-health (server config section `rule_health`). */
export interface RuleHealthSettings {
  /** Master switch of the calibration loop. */
  readonly calibration_enabled: boolean;
  /** Decisive verdicts (confirmed + rejected) a rule needs before precision is computed and it may calibrate. */
  readonly min_samples: number;
  /** The most severe rule severity calibration may touch; rules above it never calibrate. */
  readonly severity_ceiling: Severity;
  /** true: rule health counts only trusted feedback (calibration always uses trusted feedback only). */
  readonly trusted_only: boolean;
}

export const DEFAULT_RULE_HEALTH_SETTINGS: RuleHealthSettings = {
  calibration_enabled: true,
  min_samples: 5,
  severity_ceiling: 'CRITICAL',
  trusted_only: true,
};

export interface RuleHealthEntry {
  rule_id: string;
  title: string;
  severity: Severity;
  confirmed: number;
  rejected: number;
  severity_wrong: number;
  unclear: number;
  /** Every feedback entry of the rule counted, `missed` included. */
  total: number;
  precision: number | null;
  calibrating: boolean;
  last_feedback_at: string | null;
}

/** confirmed / (confirmed + rejected), 4 decimals, or null below `minSamples` decisive verdicts. */
export function precisionOf(confirmed: number, rejected: number, minSamples: number): number | null {
  const decisive = confirmed + rejected;
  if (decisive < minSamples || decisive === 0) return null;
  return Math.round((confirmed / decisive) * 10_000) / 10_000;
}

function withinCeiling(severity: Severity, ceiling: Severity): boolean {
  return SEVERITY_ORDER.indexOf(severity) >= SEVERITY_ORDER.indexOf(ceiling);
}

type RuleInfo = { title: string; severity: Severity };

/**
 * The built-in rules' titles and severities per analyzer registry: the rule files ship with the
 * server and do not change while it runs, and parsing them all takes milliseconds of the event
 * loop, too much for every rule-health read and every job's calibration block.
 */
const BUILTIN_CATALOGS = new WeakMap<EngineContext['analyzers'], ReadonlyMap<string, RuleInfo>>();

function builtinCatalog(analyzers: EngineContext['analyzers']): ReadonlyMap<string, RuleInfo> {
  let catalog = BUILTIN_CATALOGS.get(analyzers);
  if (!catalog) {
    catalog = new Map(builtinRuleEntries(analyzers).map((e) => [e.rule_id, { title: e.title, severity: e.severity }]));
    BUILTIN_CATALOGS.set(analyzers, catalog);
  }
  return catalog;
}

/** Title and severity of every rule the org knows: its rule rows, else the built-in files. */
export async function ruleCatalog(ctx: EngineContext, orgId: string): Promise<Map<string, RuleInfo>> {
  const out = new Map<string, RuleInfo>(builtinCatalog(ctx.analyzers));
  for (const r of (await ctx.stores.customRules.snapshot(orgId)).rules) out.set(r.rule_id, { title: r.title, severity: r.severity });
  return out;
}

/** Whether a rule with this trusted tally contributes to prompts. */
function calibrates(settings: RuleHealthSettings, severity: Severity, trusted: VerdictTally | undefined): boolean {
  if (!settings.calibration_enabled || !trusted) return false;
  return precisionOf(trusted.confirmed, trusted.rejected, settings.min_samples) !== null && withinCeiling(severity, settings.severity_ceiling);
}

/**
 * A rule's title and severity: from the catalogue, else (a rule no longer known) its id and the
 * severity its newest counted feedback entry names, else INFO.
 */
async function ruleInfo(ctx: EngineContext, orgId: string, catalog: Map<string, RuleInfo>, ruleId: string, trustedOnly: boolean): Promise<RuleInfo> {
  const info = catalog.get(ruleId);
  if (info) return info;
  return { title: ruleId, severity: (await ctx.stores.feedback.newestSeverity(orgId, ruleId, trustedOnly)) ?? 'INFO' };
}

/**
 * GET /rule-health: one entry per rule with feedback, by rule_id, and the settings.
 * Counts trusted feedback only when `trusted_only`. `calibrating` is true when calibration is
 * enabled, the rule has `min_samples` trusted decisive verdicts and its severity is within
 * the ceiling: exactly the rules calibrationText writes about.
 */
export async function ruleHealth(ctx: EngineContext, orgId: string, settings: RuleHealthSettings) {
  const counts = await ctx.stores.feedback.ruleCounts(orgId, ctx.now());
  const counted = verdictTallies(counts, settings.trusted_only);
  const trusted = verdictTallies(counts, true);
  const catalog = await ruleCatalog(ctx, orgId);
  const rules: RuleHealthEntry[] = [];
  for (const ruleId of [...counted.keys()].sort()) {
    const t = counted.get(ruleId)!;
    const info = await ruleInfo(ctx, orgId, catalog, ruleId, settings.trusted_only);
    rules.push({
      rule_id: ruleId,
      title: info.title,
      severity: info.severity,
      confirmed: t.confirmed,
      rejected: t.rejected,
      severity_wrong: t.severity_wrong,
      unclear: t.unclear,
      total: t.total,
      precision: precisionOf(t.confirmed, t.rejected, settings.min_samples),
      calibrating: calibrates(settings, info.severity, trusted.get(ruleId)),
      last_feedback_at: t.last,
    });
  }
  return { rules, settings: { ...settings } };
}

const QUOTES_PER_RULE = 3;
const QUOTE_CHARS = 200;

/** A reviewer comment as one JSON-quoted line of at most QUOTE_CHARS characters. */
export function quote(comment: string): string {
  const line = comment.replace(/\s+/g, ' ').trim();
  return JSON.stringify(line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS - 1)}…` : line);
}

/**
 * The calibration block for the org's analysis prompts (llm/prompt.ts `calibration`): for every
 * calibrating rule, its trusted verdict counts and precision and up to three of its most recent
 * trusted reviewer comments, quoted. Untrusted feedback never reaches it. '' when no rule
 * calibrates (the prompt then has no calibration section). Deterministic for a given log.
 */
export async function calibrationText(ctx: EngineContext, orgId: string, settings: RuleHealthSettings): Promise<string> {
  if (!settings.calibration_enabled) return '';
  const trusted = verdictTallies(await ctx.stores.feedback.ruleCounts(orgId, ctx.now()), true);
  const catalog = await ruleCatalog(ctx, orgId);
  const lines: string[] = [];
  for (const ruleId of [...trusted.keys()].sort()) {
    const t = trusted.get(ruleId)!;
    const info = await ruleInfo(ctx, orgId, catalog, ruleId, true);
    if (!calibrates(settings, info.severity, t)) continue;
    const precision = precisionOf(t.confirmed, t.rejected, settings.min_samples)!;
    lines.push(
      `- Rule ${ruleId} (${info.title}): reviewers confirmed ${t.confirmed} and rejected ${t.rejected} of its findings (precision ${precision.toFixed(2)}); ${t.severity_wrong} said the severity was wrong.`,
    );
    const notes = await ctx.stores.feedback.newestCommented(orgId, ruleId, true, QUOTES_PER_RULE);
    for (const n of notes) lines.push(`  - ${n.verdict}${n.reason_code ? ` (${n.reason_code})` : ''}: ${quote(n.comment)}`);
  }
  return lines.join('\n');
}
