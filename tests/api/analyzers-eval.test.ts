/**
 * Evaluation of the deterministic checks (`Check (CEL):`, engine/src/checks/run-checks.ts) of the
 * kubernetes, dockerfile, github-actions and cloudformation rulesets (issue 16) against the
 * hand-labelled units of tests/fixtures/eval/analyzers.json.
 *
 * Every unit of every corpus file of these kinds (and of the small synthetic inputs that give the
 * checks positives the corpus lacks, reported apart) is ingested, the rules that apply to it are
 * selected as the server selects them (rules/select.ts) and their checks run. A precision/recall
 * table per rule is printed. The test asserts only that the label file covers exactly the units
 * the analyzers produce, and that every labelled positive of a rule that has a check is found or
 * is listed as a known miss: a changed check that loses a labelled finding fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createAnalyzerRegistry } from '../../engine/src/analyzers/registry';
import type { AnalysisUnit } from '../../engine/src/analyzers/types';
import { runChecks } from '../../engine/src/checks/run-checks';
import { loadBuiltinRuleset, parseRules } from '../../engine/src/rules/ruleset';
import { selectRules } from '../../engine/src/rules/select';
import { corpusFile, corpusFiles } from '../corpus';

interface UnitLabel {
  readonly expected: readonly string[];
  readonly known_misses?: Readonly<Record<string, string>>;
  readonly notes?: string;
}

interface FileLabels {
  readonly file: string;
  readonly analyzer: string;
  readonly units: Readonly<Record<string, UnitLabel>>;
}

const EVAL_DIR = new URL('../fixtures/eval/', import.meta.url);
const LABELS = JSON.parse(readFileSync(new URL('analyzers.json', EVAL_DIR), 'utf8')) as { files: FileLabels[]; synthetic: FileLabels[] };
const FOLDERS: Record<string, string> = { 'k8s-yaml': 'kubernetes', dockerfile: 'dockerfile', 'gha-workflow': 'github-actions', 'cfn-template': 'cloudformation' };
const registry = createAnalyzerRegistry();

/** A unit's key in the label file: its name without the `<path>#` prefix of Dockerfile stages and workflow jobs. */
function unitKey(unit: AnalysisUnit, path: string): string {
  return unit.name.startsWith(`${path}#`) ? unit.name.slice(path.length + 1) : unit.name;
}

interface Outcome {
  readonly where: string;
  readonly expected: ReadonlySet<string>;
  readonly knownMisses: ReadonlySet<string>;
  readonly found: ReadonlySet<string>;
}

/**
 * Ingests one labelled file (a corpus path, or for synthetic inputs a path under
 * tests/fixtures/eval/) and runs the checks of its default ruleset on every unit.
 */
function evaluate(labels: FileLabels, synthetic: boolean): { keys: string[]; outcomes: Outcome[] } {
  const analyzer = registry.get(labels.analyzer)!;
  const ruleset = loadBuiltinRuleset(analyzer.name, analyzer.defaultRuleVariant!);
  const text = synthetic ? readFileSync(new URL(labels.file, EVAL_DIR), 'utf8') : corpusFile(labels.file).toString('utf8');
  const units = analyzer.ingest!(text, { path: labels.file });
  const keys = units.map((u) => unitKey(u, labels.file));
  const outcomes = units.flatMap((unit, i) => {
    const label = labels.units[keys[i]];
    if (!label) return [];
    const found = new Set(runChecks(selectRules(ruleset, unit).rules, unit).map((m) => m.rule.rule_id));
    return [{ where: `${labels.file} ${keys[i]}`, expected: new Set(label.expected), knownMisses: new Set(Object.keys(label.known_misses ?? {})), found }];
  });
  return { keys, outcomes };
}

const CHECKED = new Map<string, boolean>(); // rule id → has a `Check (CEL):` line
for (const name of Object.values(FOLDERS)) {
  const analyzer = registry.get(name)!;
  for (const rule of parseRules(loadBuiltinRuleset(name, analyzer.defaultRuleVariant!))) CHECKED.set(rule.rule_id, rule.check !== null);
}

const pct = (n: number, d: number): string => (d === 0 ? '-' : `${Math.round((100 * n) / d)}%`);

/** One row per rule: true/false positives, misses (known ones apart), precision and recall. */
function table(outcomes: readonly Outcome[]): string {
  const rows = [...CHECKED.keys()].map((id) => {
    const tp = outcomes.filter((o) => o.expected.has(id) && o.found.has(id)).length;
    const fp = outcomes.filter((o) => !o.expected.has(id) && o.found.has(id)).length;
    const fn = outcomes.filter((o) => o.expected.has(id) && !o.found.has(id)).length;
    const known = outcomes.filter((o) => o.expected.has(id) && !o.found.has(id) && o.knownMisses.has(id)).length;
    return [id, CHECKED.get(id) ? 'CEL' : 'prose', String(tp + fn), String(tp), String(fp), `${fn} (${known} known)`, pct(tp, tp + fp), pct(tp, tp + fn)];
  });
  const head = ['rule', 'check', 'labelled', 'TP', 'FP', 'FN', 'precision', 'recall'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  return [head, ...rows].map((r) => r.map((c, i) => c.padEnd(widths[i])).join('  ')).join('\n');
}

describe('deterministic checks of the kubernetes, dockerfile, github-actions and cloudformation rulesets against hand labels', () => {
  const results = LABELS.files.map((f) => ({ labels: f, ...evaluate(f, false) }));
  const synthetic = LABELS.synthetic.map((f) => ({ labels: f, ...evaluate(f, true) }));
  const outcomes = results.flatMap((r) => r.outcomes);
  const all = [...outcomes, ...synthetic.flatMap((r) => r.outcomes)];

  it('labels every unit of every corpus file of these kinds, with rule ids of the analyzer', () => {
    const corpus = Object.keys(FOLDERS).flatMap((folder) => corpusFiles(folder));
    expect(LABELS.files.map((f) => f.file).sort()).toEqual(corpus.sort());
    for (const { labels, keys } of [...results, ...synthetic]) {
      if (!labels.file.startsWith('synthetic/')) expect(labels.analyzer, labels.file).toBe(FOLDERS[labels.file.split('/')[0]]);
      expect(Object.keys(labels.units).sort(), labels.file).toEqual([...keys].sort());
      for (const [key, label] of Object.entries(labels.units)) {
        for (const id of label.expected) expect(CHECKED.has(id), `${labels.file} ${key}: ${id}`).toBe(true);
        for (const id of Object.keys(label.known_misses ?? {})) expect(label.expected, `${labels.file} ${key}: known miss ${id}`).toContain(id);
      }
    }
  });

  it('finds every labelled positive of a checked rule, except the known misses; prints precision and recall per rule', () => {
    console.log(`Deterministic checks vs hand labels, corpus (${outcomes.length} units)\n${table(outcomes)}`);
    console.log(`Corpus and synthetic inputs (${all.length} units)\n${table(all)}`);
    const fp = all.flatMap((o) => [...o.found].filter((id) => !o.expected.has(id)).map((id) => `${o.where}: ${id}`));
    if (fp.length > 0) console.log(`False positives:\n${fp.join('\n')}`);
    const nowFound = all.flatMap((o) => [...o.knownMisses].filter((id) => o.found.has(id)).map((id) => `${o.where}: ${id}`));
    if (nowFound.length > 0) console.log(`Known misses now found (remove them from the label file):\n${nowFound.join('\n')}`);
    const missed = all.flatMap((o) => [...o.expected]
      .filter((id) => CHECKED.get(id) && !o.found.has(id) && !o.knownMisses.has(id))
      .map((id) => `${o.where}: ${id}`));
    expect(missed).toEqual([]);
  });
});
