/**
 * Evaluation of the deterministic checks (`Check (CEL):`, engine/src/checks/run-checks.ts) of the
 * kubernetes, dockerfile, github-actions and cloudformation rulesets (issue 16) against the
 * hand-labelled units of tests/fixtures/eval/analyzers.json.
 *
 * Every unit of every corpus file of these kinds (and of the small synthetic inputs that give the
 * checks positives the corpus lacks, reported apart) is ingested, the rules that apply to it are
 * selected as the server selects them (rules/select.ts) and their checks run
 * (tests/helpers/eval-labels.ts, shared with the Terraform evaluation and `npm run eval`). A
 * precision/recall table per rule is printed. The test asserts only that the label file covers
 * exactly the units the analyzers produce, and that every labelled positive of a rule that has a
 * check is found or is listed as a known miss: a changed check that loses a labelled finding
 * fails here.
 */
import { describe, expect, it } from 'vitest';
import { corpusFiles } from '../corpus';
import {
  checkMatches,
  checkedRules,
  evalUnits,
  falsePositives,
  knownMissesNowFound,
  loadLabelSet,
  outcome,
  scoreTable,
  unexplainedMisses,
  type FileLabels,
} from '../helpers/eval-labels';

const LABELS = loadLabelSet('analyzers.json');
const FOLDERS: Record<string, string> = {
  'k8s-yaml': 'kubernetes',
  dockerfile: 'dockerfile',
  'gha-workflow': 'github-actions',
  'cfn-template': 'cloudformation',
};
const CHECKED = checkedRules(Object.values(FOLDERS));

function evaluate(labels: FileLabels, synthetic: boolean) {
  const units = evalUnits(labels, synthetic);
  return {
    labels,
    keys: units.map((u) => u.key),
    outcomes: units
      .filter((u) => u.label)
      .map((u) =>
        outcome(
          u,
          checkMatches(u).map((m) => m.rule.rule_id),
        ),
      ),
  };
}

describe('deterministic checks of the kubernetes, dockerfile, github-actions and cloudformation rulesets against hand labels', () => {
  const results = LABELS.files.map((f) => evaluate(f, false));
  const synthetic = (LABELS.synthetic ?? []).map((f) => evaluate(f, true));
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
    console.log(`Deterministic checks vs hand labels, corpus (${outcomes.length} units)\n${scoreTable(outcomes, CHECKED, { all: true })}`);
    console.log(`Corpus and synthetic inputs (${all.length} units)\n${scoreTable(all, CHECKED, { all: true })}`);
    const fp = falsePositives(all);
    if (fp.length > 0) console.log(`False positives:\n${fp.join('\n')}`);
    const nowFound = knownMissesNowFound(all);
    if (nowFound.length > 0) console.log(`Known misses now found (remove them from the label file):\n${nowFound.join('\n')}`);
    expect(unexplainedMisses(all, CHECKED)).toEqual([]);
  });
});
