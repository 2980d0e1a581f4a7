/**
 * The hand-labelled evaluation sets (issue 15 "evaluation harness", issue 16): loading the label
 * files of tests/fixtures/eval/, ingesting each labelled file the way the server does, selecting
 * the rules that apply to each unit (rules/select.ts), and scoring what a layer found (the
 * deterministic checks, or a model) against the labels: precision and recall per rule.
 *
 * Shared by tests/api/analyzers-eval.test.ts, tests/api/terraform-eval.test.ts and `npm run
 * eval` (bench/eval.ts). Label file shape (JSON):
 * `{about, files: [{file, analyzer, units: {<unit key>: {expected, known_misses?, known_false_positives?, notes?}}}], synthetic?: [...]}`
 * where `file` is a corpus path (tests/corpus/) or, for synthetic inputs, a path under
 * tests/fixtures/eval/; `expected` lists the rule ids that should fire (empty = clean);
 * `known_misses` / `known_false_positives` map a rule id to the reason the deterministic layer
 * misses / wrongly reports it.
 */
import { readFileSync } from 'node:fs';
import { createAnalyzerRegistry, type AnalyzerRegistry } from '../../engine/src/analyzers/registry';
import type { AnalysisUnit } from '../../engine/src/core/unit';
import { runChecks, type CheckMatch } from '../../engine/src/checks/run-checks';
import { autoRoute } from '../../engine/src/ingest/auto-route';
import { looksLikeUnifiedDiff } from '../../engine/src/core/diff';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from '../../engine/src/rules/ruleset';
import { selectRules, type SelectedRules } from '../../engine/src/rules/select';
import { corpusFile } from '../corpus';

export interface UnitLabel {
  readonly expected: readonly string[];
  readonly known_misses?: Readonly<Record<string, string>>;
  readonly known_false_positives?: Readonly<Record<string, string>>;
  readonly notes?: string;
}

export interface FileLabels {
  readonly file: string;
  readonly analyzer: string;
  readonly units: Readonly<Record<string, UnitLabel>>;
}

export interface LabelSet {
  readonly about: string;
  readonly files: readonly FileLabels[];
  readonly synthetic?: readonly FileLabels[];
}

/** `tests/fixtures/eval/` (file URL, ends with a slash). */
export const EVAL_DIR = new URL('../fixtures/eval/', import.meta.url);

/** Parses one label file of tests/fixtures/eval/ (`analyzers.json`, `terraform.json`). Throws on a missing or malformed file. */
export function loadLabelSet(name: string): LabelSet {
  return JSON.parse(readFileSync(new URL(name, EVAL_DIR), 'utf8')) as LabelSet;
}

/** The analyzers the label files refer to (the built-in registry, routing order). */
export const evalRegistry: AnalyzerRegistry = createAnalyzerRegistry();

/** One unit of a labelled file, with the rules the server would select for it. */
export interface EvalUnit {
  /** `<file> <key>`, for messages. */
  readonly where: string;
  /** The unit's key in the label file. */
  readonly key: string;
  readonly unit: AnalysisUnit;
  /** Undefined when the label file has no entry for the key (the coverage test reports it). */
  readonly label: UnitLabel | undefined;
  readonly selected: SelectedRules;
  /** True when the deterministic layer can judge the unit: it carries planned/parsed values (`metadata.values`). */
  readonly hasValues: boolean;
}

/** A unit's key in a label file: its name without the `<path>#` prefix of Dockerfile stages and workflow jobs. */
export function unitKey(unit: AnalysisUnit, path: string): string {
  return unit.name.startsWith(`${path}#`) ? unit.name.slice(path.length + 1) : unit.name;
}

/**
 * The units of one labelled file as the server produces them: a unified diff is auto-routed
 * (ingest/auto-route.ts) and only the files routed to `labels.analyzer` kept; anything else is
 * the analyzer's own `ingest`. Each unit gets the rules of its rule variant (`ruleVariantFor`,
 * else the analyzer's default) that apply to it. Throws when the analyzer is unknown or the
 * input does not parse (a broken corpus file must fail the evaluation loudly).
 */
export function evalUnits(labels: FileLabels, synthetic = false): EvalUnit[] {
  const analyzer = evalRegistry.get(labels.analyzer);
  if (!analyzer?.ingest) throw new Error(`label file names an unknown analyzer: ${labels.analyzer}`);
  const text = synthetic ? readFileSync(new URL(labels.file, EVAL_DIR), 'utf8') : corpusFile(labels.file).toString('utf8');
  const units = looksLikeUnifiedDiff(text)
    ? autoRoute(text, evalRegistry.list(), () => true).units.filter((u) => u.metadata.analyzer === analyzer.name)
    : analyzer.ingest(text, { path: labels.file });
  return units.map((unit) => {
    const key = unitKey(unit, labels.file);
    const variant = analyzer.ruleVariantFor?.(unit) ?? analyzer.defaultRuleVariant!;
    return {
      where: `${labels.file} ${key}`,
      key,
      unit,
      label: labels.units[key],
      selected: selectRules(loadBuiltinRuleset(analyzer.name, variant), unit),
      hasValues: unit.metadata.values !== undefined,
    };
  });
}

/** What one layer found on one labelled unit. */
export interface Outcome {
  readonly where: string;
  readonly expected: ReadonlySet<string>;
  readonly knownMisses: ReadonlySet<string>;
  readonly knownFalsePositives: ReadonlySet<string>;
  /** Rule ids the layer reported (NO-FINDINGS excluded). */
  readonly found: ReadonlySet<string>;
}

/** The deterministic checks' matches on one unit (the rules selected for it). */
export function checkMatches(u: EvalUnit): CheckMatch[] {
  return runChecks(u.selected.rules, u.unit);
}

/**
 * True when the deterministic layer can judge rule `ruleId` on `u`: the rule sent with the unit
 * has a check, and the unit carries what the check reads. Mirrors the skips of
 * engine/src/checks/run-checks.ts `runChecks`: a check naming `values` is skipped on a unit
 * without planned values (plan text, `.tf` diff blocks), one naming `companions` on a unit
 * without plan context; checks over `lines` and `unit` alone judge every unit.
 */
export function checkJudges(u: EvalUnit, ruleId: string): boolean {
  const check = u.selected.rules.find((r) => r.rule_id === ruleId)?.check;
  if (!check) return false;
  if (u.unit.metadata.values === undefined && /(?<![.\w])values\b/.test(check)) return false;
  return Array.isArray(u.unit.metadata.context) || !/\bcompanions\b/.test(check);
}

/**
 * The deterministic layer's outcomes on the labelled units it can judge: every unit with planned
 * values (all its labels count, so a labelled rule without a check is a miss), and each unit
 * without them that some selected check can judge (plan text, `.tf` diff blocks: checks over
 * `lines`), scored only on the labels of rules it can judge (`checkJudges`).
 */
export function checkOutcomes(units: readonly EvalUnit[]): Outcome[] {
  return units
    .filter((u) => u.label !== undefined)
    .flatMap((u) => {
      const found = checkMatches(u).map((m) => m.rule.rule_id);
      if (u.hasValues) return [outcome(u, found)];
      if (!u.selected.ruleIds.some((id) => checkJudges(u, id))) return [];
      const o = outcome(u, found);
      const judged = (ids: ReadonlySet<string>) => new Set([...ids].filter((id) => checkJudges(u, id)));
      return [{ ...o, expected: judged(o.expected), knownMisses: judged(o.knownMisses) }];
    });
}

/** An outcome from the rule ids a layer found on a labelled unit. */
export function outcome(u: EvalUnit, found: Iterable<string>): Outcome {
  const label = u.label ?? { expected: [] };
  return {
    where: u.where,
    expected: new Set(label.expected),
    knownMisses: new Set(Object.keys(label.known_misses ?? {})),
    knownFalsePositives: new Set(Object.keys(label.known_false_positives ?? {})),
    found: new Set(found),
  };
}

/** Every rule of every rule variant of `analyzers`: rule id → whether it has a `Check (CEL):` line. */
export function checkedRules(analyzers: readonly string[]): Map<string, boolean> {
  const checked = new Map<string, boolean>();
  for (const name of analyzers) {
    for (const variant of listBuiltinRuleVariants(name)) {
      for (const rule of parseRules(loadBuiltinRuleset(name, variant))) checked.set(rule.rule_id, rule.check !== null);
    }
  }
  return checked;
}

/** Counts of one rule (or all rules) over a set of outcomes. */
export interface Score {
  readonly labelled: number;
  readonly tp: number;
  readonly fp: number;
  readonly fn: number;
  /** Misses listed in `known_misses`. */
  readonly knownFn: number;
}

/** True/false positives and misses of `id` over `outcomes`. */
export function scoreRule(outcomes: readonly Outcome[], id: string): Score {
  let tp = 0;
  let fp = 0;
  let fn = 0;
  let knownFn = 0;
  for (const o of outcomes) {
    const expected = o.expected.has(id);
    const found = o.found.has(id);
    if (expected && found) tp += 1;
    else if (found) fp += 1;
    else if (expected) {
      fn += 1;
      if (o.knownMisses.has(id)) knownFn += 1;
    }
  }
  return { labelled: tp + fn, tp, fp, fn, knownFn };
}

/** Sum of the per-rule scores of `ids` (micro-averaged precision and recall). */
export function scoreAll(outcomes: readonly Outcome[], ids: Iterable<string>): Score {
  const total = { labelled: 0, tp: 0, fp: 0, fn: 0, knownFn: 0 };
  for (const id of ids) {
    const s = scoreRule(outcomes, id);
    total.labelled += s.labelled;
    total.tp += s.tp;
    total.fp += s.fp;
    total.fn += s.fn;
    total.knownFn += s.knownFn;
  }
  return total;
}

/** `n/d` as a whole percentage; `-` when d is 0. */
export function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${Math.round((100 * n) / d)}%`;
}

/**
 * A plain-text table, one row per rule of `rules` (id → has a check) that was labelled or found
 * at least once (every rule when `all`), then an `overall` row: labelled, TP, FP, FN (known),
 * precision, recall. `markdown` renders it as a Markdown table.
 */
export function scoreTable(outcomes: readonly Outcome[], rules: ReadonlyMap<string, boolean>, options: { all?: boolean; markdown?: boolean } = {}): string {
  const row = (id: string, kind: string, s: Score) => [
    id,
    kind,
    String(s.labelled),
    String(s.tp),
    String(s.fp),
    `${s.fn} (${s.knownFn} known)`,
    pct(s.tp, s.tp + s.fp),
    pct(s.tp, s.tp + s.fn),
  ];
  const rows = [...rules.keys()]
    .map((id) => ({ id, s: scoreRule(outcomes, id) }))
    .filter(({ s }) => options.all || s.labelled + s.fp > 0)
    .map(({ id, s }) => row(id, rules.get(id) ? 'CEL' : 'prose', s));
  rows.push(row('overall', '', scoreAll(outcomes, rules.keys())));
  const head = ['rule', 'check', 'labelled', 'TP', 'FP', 'FN', 'precision', 'recall'];
  if (options.markdown) {
    return [head, head.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');
  }
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows]
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `<where>: <rule id>` for every labelled positive of a checked rule not found and not a known miss. */
export function unexplainedMisses(outcomes: readonly Outcome[], checked: ReadonlyMap<string, boolean>): string[] {
  return outcomes.flatMap((o) =>
    [...o.expected].filter((id) => checked.get(id) && !o.found.has(id) && !o.knownMisses.has(id)).map((id) => `${o.where}: ${id}`),
  );
}

/** `<where>: <rule id>` for every rule found but not labelled (known false positives marked). */
export function falsePositives(outcomes: readonly Outcome[]): string[] {
  return outcomes.flatMap((o) =>
    [...o.found].filter((id) => !o.expected.has(id)).map((id) => `${o.where}: ${id}${o.knownFalsePositives.has(id) ? ' (known)' : ''}`),
  );
}

/** `<where>: <rule id>` for every known miss the layer now finds (the label file should drop it). */
export function knownMissesNowFound(outcomes: readonly Outcome[]): string[] {
  return outcomes.flatMap((o) => [...o.knownMisses].filter((id) => o.found.has(id)).map((id) => `${o.where}: ${id}`));
}
