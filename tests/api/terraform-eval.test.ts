/**
 * Evaluation of the deterministic checks (`Check (CEL):`) of the Terraform rulesets (issue 15)
 * against the hand labels of tests/fixtures/eval/terraform.json: every unit of every corpus plan
 * (tfplan-json, tfplan-text) and every Terraform unit of the corpus diffs (diff-tf, and the
 * Terraform files of diff-mixed), plus small synthetic plans, a synthetic `.tf` diff and a synthetic
 * `.tf` file (tf-gap-rules.tf: one failing and one passing block per rule added for the gaps seen
 * against Checkov, judged on the values of its literals, analyzers/terraform/hcl-values.ts) giving
 * the checks positives and compliant counterparts the corpus lacks.
 *
 * The label file must cover exactly the units the terraform analyzer produces from each labelled
 * file, name only rule ids of the Terraform rulesets, and every labelled positive of a rule that
 * has a check must be found on the units the checks can judge (those with planned or parsed
 * values; on plan text and diff blocks shown only in part, the rules whose checks read only
 * `lines` and `unit`) or be
 * listed as a known miss with its reason: a rule change that loses a finding fails here. The
 * per-rule table is printed (the full run with a model is `npm run eval`, bench/eval.ts).
 */
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../corpus';
import {
  checkOutcomes,
  checkedRules,
  evalUnits,
  falsePositives,
  knownMissesNowFound,
  loadLabelSet,
  scoreTable,
  unexplainedMisses,
} from '../helpers/eval-labels';

const LABELS = loadLabelSet('terraform.json');
const CHECKED = checkedRules(['terraform']);
const CORPUS = [
  ...corpusFiles('tfplan-json', '.json'),
  ...corpusFiles('tfplan-text', '.txt'),
  ...corpusFiles('diff-tf', '.diff'),
  // Mixed diffs count when auto-routing gives the terraform analyzer at least one unit of theirs.
  ...corpusFiles('diff-mixed', '.diff').filter((file) => evalUnits({ file, analyzer: 'terraform', units: {} }).length > 0),
];

describe('deterministic checks of the Terraform rulesets against hand labels', () => {
  const results = LABELS.files.map((labels) => ({ labels, units: evalUnits(labels) }));
  const synthetic = (LABELS.synthetic ?? []).map((labels) => ({ labels, units: evalUnits(labels, true) }));
  const judge = (r: typeof results) => checkOutcomes(r.flatMap((x) => x.units));
  const outcomes = judge(results);
  const all = [...outcomes, ...judge(synthetic)];

  it('labels every unit of every corpus plan and Terraform diff, with rule ids of the Terraform rulesets that apply to the unit', () => {
    expect(LABELS.files.map((f) => f.file).sort()).toEqual([...CORPUS].sort());
    let units = 0;
    for (const { labels, units: produced } of [...results, ...synthetic]) {
      expect(labels.analyzer, labels.file).toBe('terraform');
      const keys = produced.map((u) => u.key);
      expect(new Set(keys).size, `${labels.file}: unit keys are unique`).toBe(keys.length);
      expect(Object.keys(labels.units).sort(), labels.file).toEqual([...keys].sort());
      units += keys.length;
      for (const u of produced) {
        const label = u.label!;
        for (const id of label.expected) {
          expect(CHECKED.has(id), `${u.where}: ${id} is a Terraform rule`).toBe(true);
          expect(u.selected.ruleIds, `${u.where}: ${id} is sent with the unit`).toContain(id);
        }
        for (const id of Object.keys(label.known_misses ?? {})) expect(label.expected, `${u.where}: known miss ${id}`).toContain(id);
        for (const id of Object.keys(label.known_false_positives ?? {})) expect(label.expected, `${u.where}: known false positive ${id}`).not.toContain(id);
      }
    }
    expect(units - synthetic.reduce((n, s) => n + s.units.length, 0)).toBeGreaterThanOrEqual(100);
  });

  it('finds every labelled positive of a checked rule on units with planned values, except the known misses', () => {
    console.log(`Terraform deterministic checks vs hand labels, corpus (${outcomes.length} units the checks can judge)\n${scoreTable(outcomes, CHECKED)}`);
    console.log(`Corpus and synthetic plan (${all.length} units)\n${scoreTable(all, CHECKED)}`);
    const fp = falsePositives(all);
    if (fp.length > 0) console.log(`False positives:\n${fp.join('\n')}`);
    const nowFound = knownMissesNowFound(all);
    if (nowFound.length > 0) console.log(`Known misses now found (remove them from the label file):\n${nowFound.join('\n')}`);
    expect(unexplainedMisses(all, CHECKED)).toEqual([]);
  });

  it('reports no finding the labels do not list, unless it is a recorded false positive', () => {
    const unexpected = falsePositives(all).filter((line) => !line.endsWith(' (known)'));
    expect(unexpected).toEqual([]);
  });
});
