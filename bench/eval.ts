/**
 * `npm run eval` (issue 15 "An evaluation harness"): precision and recall of Planwarden's findings
 * against the hand labels of tests/fixtures/eval/ (terraform.json: every corpus plan and
 * Terraform diff unit; analyzers.json: the Kubernetes, Dockerfile, GitHub Actions and
 * CloudFormation corpus units), per rule and overall.
 *
 * - Deterministic layer (always): the `Check (CEL):` conditions of the rules selected for each unit
 *   (engine/src/checks/run-checks.ts). On units without planned values (Terraform plan text and
 *   `.tf` diff blocks) only the rules whose checks read the body lines alone are scored
 *   (tests/helpers/eval-labels.ts `checkOutcomes`); the other units are left out.
 * - Model (when configured through the environment): every labelled unit through the engine's
 *   analyse-unit path (llm/analyse-unit.ts: the selected rules, the deterministic matches as known
 *   facts, enforced output), the matches merged in as the server does (checks/merge.ts), scored
 *   the same way. Environment: PLANWARDEN_EVAL_PROVIDER = openai | anthropic | ollama,
 *   PLANWARDEN_EVAL_MODEL (required with a provider), the provider's key variable
 *   (OPENAI_API_KEY, ANTHROPIC_API_KEY; none for ollama), its usual base-URL variable
 *   (OPENAI_BASE_URL, ANTHROPIC_BASE_URL, OLLAMA_HOST), optional PLANWARDEN_EVAL_LIMIT (at most
 *   that many units per label set, for a quick run).
 *
 * Prints the tables and writes the run to bench/EVAL.md (date, commit, tables), replacing the
 * previous run. Never part of `npm test`; tests/api/terraform-eval.test.ts and
 * analyzers-eval.test.ts guard the deterministic figures in the suite.
 */
import { execSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { factsText } from '../engine/src/checks/run-checks';
import { mergeFindings } from '../engine/src/checks/merge';
import { analyseUnit, type AnalysisSettings } from '../engine/src/llm/analyse-unit';
import { NO_FINDINGS_RULE_ID } from '../engine/src/core/payload';
import { createProvider } from '../engine/src/llm/providers/index';
import type { LlmBackend, LlmProvider } from '../engine/src/llm/types';
import {
  checkMatches,
  checkOutcomes,
  checkedRules,
  evalUnits,
  falsePositives,
  loadLabelSet,
  outcome,
  scoreAll,
  scoreRule,
  scoreTable,
  pct,
  type EvalUnit,
  type Outcome,
  type Score,
} from '../tests/helpers/eval-labels';
import { REPO_DIR } from './lib';

const SETS = [
  { name: 'terraform', file: 'terraform.json', analyzers: ['terraform'] },
  { name: 'other analyzers', file: 'analyzers.json', analyzers: ['kubernetes', 'dockerfile', 'github-actions', 'cloudformation'] },
] as const;

const SETTINGS: AnalysisSettings = { maxAttempts: 2, backoffSeconds: 2, timeoutSeconds: 180, maxOutputTokens: 4096 };

interface ModelConfig {
  readonly backend: LlmBackend;
  readonly model: string;
  readonly provider: LlmProvider;
}

/**
 * The model named by the environment, or null when PLANWARDEN_EVAL_PROVIDER is unset.
 * Throws an Error naming the missing variable when the provider is set but incomplete.
 */
function modelFromEnv(env: NodeJS.ProcessEnv): ModelConfig | null {
  const backend = env.PLANWARDEN_EVAL_PROVIDER?.trim();
  if (!backend) return null;
  if (!['openai', 'anthropic', 'ollama'].includes(backend)) throw new Error(`PLANWARDEN_EVAL_PROVIDER must be openai, anthropic or ollama, not ${backend}`);
  const model = env.PLANWARDEN_EVAL_MODEL?.trim();
  if (!model) throw new Error('PLANWARDEN_EVAL_MODEL is required with PLANWARDEN_EVAL_PROVIDER');
  const keyVar = backend === 'openai' ? 'OPENAI_API_KEY' : backend === 'anthropic' ? 'ANTHROPIC_API_KEY' : null;
  const apiKey = keyVar ? (env[keyVar]?.trim() ?? '') : null;
  if (keyVar && !apiKey) throw new Error(`${keyVar} is required for PLANWARDEN_EVAL_PROVIDER=${backend}`);
  return { backend: backend as LlmBackend, model, provider: createProvider({ backend: backend as LlmBackend, apiKey }) };
}

/** The labelled units of one label set (its corpus files, or its synthetic inputs), at most `limit`. */
function labelledUnits(file: string, synthetic: boolean, limit: number): EvalUnit[] {
  const labels = loadLabelSet(file);
  return (synthetic ? (labels.synthetic ?? []) : labels.files)
    .flatMap((f) => evalUnits(f, synthetic))
    .filter((u) => u.label !== undefined)
    .slice(0, limit);
}

/** One unit through the model path; the rule ids of the merged findings, or the error message. */
async function modelFindings(model: ModelConfig, u: EvalUnit): Promise<{ found: string[]; error: string | null }> {
  const matches = checkMatches(u);
  try {
    const result = await analyseUnit(model.provider, {
      model: model.model,
      rules: u.selected.text,
      ruleIds: u.selected.ruleIds,
      facts: factsText(matches),
      unit: u.unit,
      settings: SETTINGS,
    });
    const merged = mergeFindings(result.payload, matches, u.unit);
    return { found: merged.findings.map((f) => f.rule_id).filter((id) => id !== NO_FINDINGS_RULE_ID), error: null };
  } catch (err) {
    return { found: matches.map((m) => m.rule.rule_id), error: err instanceof Error ? err.message : String(err) };
  }
}

/** The rules with misses or false positives, lowest recall first (then most false positives); ['none'] when every rule is exact. */
function worstRules(outcomes: readonly Outcome[], rules: ReadonlyMap<string, boolean>, n: number): string[] {
  const recall = (s: Score): number => (s.labelled === 0 ? 1 : s.tp / s.labelled);
  const worst = [...rules.keys()]
    .map((id) => ({ id, s: scoreRule(outcomes, id) }))
    .filter(({ s }) => s.fn + s.fp > 0)
    .sort((a, b) => recall(a.s) - recall(b.s) || b.s.fp - a.s.fp)
    .slice(0, n)
    .map(
      ({ id, s }) =>
        `${id}: recall ${pct(s.tp, s.labelled)} (${s.tp}/${s.labelled}, ${s.knownFn} known misses), precision ${pct(s.tp, s.tp + s.fp)} (${s.fp} FP)`,
    );
  return worst.length > 0 ? worst : ['none'];
}

interface Section {
  readonly title: string;
  readonly units: number;
  readonly outcomes: readonly Outcome[];
  readonly rules: ReadonlyMap<string, boolean>;
  readonly notes: readonly string[];
}

function summary(s: Section): string {
  const all = scoreAll(s.outcomes, s.rules.keys());
  return `${s.title}: ${s.outcomes.length} units, ${all.labelled} labelled findings; precision ${pct(all.tp, all.tp + all.fp)}, recall ${pct(all.tp, all.labelled)} (TP ${all.tp}, FP ${all.fp}, FN ${all.fn}, of which ${all.knownFn} known misses)`;
}

async function main(): Promise<void> {
  const limit = Number(process.env.PLANWARDEN_EVAL_LIMIT ?? '') || Number.POSITIVE_INFINITY;
  const model = modelFromEnv(process.env);
  const sections: Section[] = [];
  for (const set of SETS.flatMap((s) => [
    { ...s, synthetic: false },
    { ...s, name: `${s.name} (synthetic inputs)`, synthetic: true },
  ])) {
    const units = labelledUnits(set.file, set.synthetic, limit);
    if (units.length === 0) continue;
    const rules = checkedRules(set.analyzers);
    const outcomes = checkOutcomes(units);
    const skipped = units.length - outcomes.length;
    sections.push({
      title: `Deterministic checks, ${set.name}`,
      units: units.length,
      outcomes,
      rules,
      notes: [
        ...(skipped > 0 ? [`${skipped} labelled units without planned values that no check reads (plan text, diffs) count only for a model run.`] : []),
        ...falsePositives(outcomes).map((l) => `FP ${l}`),
      ],
    });
    if (!model) continue;
    const modelOutcomes: Outcome[] = [];
    const errors: string[] = [];
    for (const [i, u] of units.entries()) {
      process.stdout.write(`\r  ${model.backend}/${model.model}: ${set.name} unit ${i + 1}/${units.length}`);
      const r = await modelFindings(model, u);
      if (r.error) errors.push(`${u.where}: ${r.error}`);
      modelOutcomes.push(outcome(u, r.found));
    }
    process.stdout.write('\n');
    sections.push({
      title: `Model ${model.backend}/${model.model} + checks, ${set.name}`,
      units: units.length,
      outcomes: modelOutcomes,
      rules,
      notes: [...errors.map((e) => `failed (checks only): ${e}`), ...falsePositives(modelOutcomes).map((l) => `FP ${l}`)],
    });
  }

  for (const s of sections) {
    console.log(`\n== ${summary(s)}\n${scoreTable(s.outcomes, s.rules)}`);
    console.log(`Worst rules:\n  ${worstRules(s.outcomes, s.rules, 5).join('\n  ')}`);
    if (s.notes.length > 0) console.log(s.notes.map((n) => `  ${n}`).join('\n'));
  }
  if (!model) console.log('\nNo model configured (PLANWARDEN_EVAL_PROVIDER, PLANWARDEN_EVAL_MODEL): deterministic layer only.');

  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const md = [
    '# Evaluation (`npm run eval`)',
    '',
    `Last run: ${new Date().toISOString()}, commit ${commit}${Number.isFinite(limit) ? `, at most ${limit} units per label set` : ''}; ${model ? `model ${model.backend}/${model.model}` : 'no model configured (deterministic layer only)'}.`,
    'Labels: tests/fixtures/eval/terraform.json and analyzers.json (hand labels; see their `about`). Precision = TP / (TP + FP), recall = TP / labelled; "known" misses are listed with their reason in the label files.',
    ...sections.flatMap((s) => [
      '',
      `## ${s.title}`,
      '',
      summary(s),
      '',
      scoreTable(s.outcomes, s.rules, { markdown: true }),
      '',
      'Worst rules:',
      '',
      ...worstRules(s.outcomes, s.rules, 5).map((w) => `- ${w}`),
      ...(s.notes.length > 0 ? ['', ...s.notes.map((n) => `- ${n}`)] : []),
    ]),
    '',
  ].join('\n');
  writeFileSync(join(REPO_DIR, 'bench', 'EVAL.md'), md);
  console.log('\nWritten to bench/EVAL.md');
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
