import { readFile, writeFile } from 'node:fs/promises';
import type * as Sarif from 'sarif';
import { z } from 'zod';
import { SEVERITY_ORDER, type Severity } from '@planwarden/engine/core/finding-model';
import { CliError } from './errors';
import { describeIssues } from './answers';
import type { OutcomeFinding } from './outcome';

/**
 * Baselines of `planwarden analyze` (`--write-baseline FILE`, `--baseline FILE`): the findings
 * a team has accepted, keyed by (resource hash, rule id), so that a pipeline fails only on new
 * ones. The key is the one a finding has in the store (analysis-api.md "Finding"): a resource
 * whose content changes gets a new hash, and its findings count as new again. docs/ci.md.
 */

/** One accepted finding; address and severity are for the reader of the file. */
const BaselineEntrySchema = z.object({
  resource_hash: z.string().min(1),
  rule_id: z.string().min(1),
  resource_address: z.string().nullable().optional(),
  severity: z.enum(SEVERITY_ORDER as [Severity, ...Severity[]]).optional(),
});

/** The baseline file: `{planwarden_baseline: 1, findings: [...]}`. */
export const BaselineSchema = z.object({
  planwarden_baseline: z.literal(1),
  findings: z.array(BaselineEntrySchema),
});
export type Baseline = z.infer<typeof BaselineSchema>;

const key = (hash: string, ruleId: string) => `${hash}\u0000${ruleId}`;

/** Reads and validates a baseline file. Throws CliError (exit 2) naming the file and the first problems. */
export async function readBaseline(file: string): Promise<Baseline> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot read the baseline ${file}: ${error.code ?? error.message}`);
  });
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the baseline ${file} is not JSON (${(error as Error).message})`);
  }
  const parsed = BaselineSchema.safeParse(json);
  if (!parsed.success) throw new CliError(`the baseline ${file} is not a Planwarden baseline: ${describeIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Marks the results of `log` that `baseline` accepts as suppressed (SARIF `external` /
 * `accepted`, justification naming `file`, property `baseline: true`), so the gate
 * (outcome.ts evaluate) leaves them out and code scanning shows them dismissed. Returns how
 * many results it marked. Mutates `log`.
 */
export function applyBaseline(log: Sarif.Log, baseline: Baseline, file: string): number {
  const accepted = new Set(baseline.findings.map((f) => key(f.resource_hash, f.rule_id)));
  let marked = 0;
  for (const result of log.runs[0]?.results ?? []) {
    const hash = result.properties?.resource_hash;
    if (typeof hash !== 'string' || !result.ruleId || !accepted.has(key(hash, result.ruleId))) continue;
    result.properties = { ...result.properties, baseline: true };
    result.suppressions = [...(result.suppressions ?? []), { kind: 'external', status: 'accepted', justification: `accepted in the baseline ${file}` }];
    marked += 1;
  }
  return marked;
}

/**
 * The baseline of a run: every open finding that has a resource hash (triaged ones do not gate
 * anyway), sorted by hash and rule id so the file diffs cleanly between runs.
 */
export function baselineOf(findings: readonly OutcomeFinding[]): Baseline {
  const seen = new Set<string>();
  const entries: Baseline['findings'] = [];
  for (const f of findings) {
    if (f.status !== 'open' || !f.resource_hash) continue;
    const k = key(f.resource_hash, f.rule_id);
    if (seen.has(k)) continue;
    seen.add(k);
    entries.push({ resource_hash: f.resource_hash, rule_id: f.rule_id, resource_address: f.resource_address, severity: f.severity });
  }
  entries.sort((a, b) => (a.resource_hash === b.resource_hash ? a.rule_id.localeCompare(b.rule_id) : a.resource_hash < b.resource_hash ? -1 : 1));
  return { planwarden_baseline: 1, findings: entries };
}

/** Writes `baseline` as indented JSON. Throws CliError (exit 2) when the file cannot be written. */
export async function writeBaseline(file: string, baseline: Baseline): Promise<void> {
  await writeFile(file, `${JSON.stringify(baseline, null, 2)}\n`).catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`cannot write the baseline ${file}: ${error.code ?? error.message}`);
  });
}

/** The Markdown the command appends to a report when a baseline hid findings from the gate. */
export function baselineNote(marked: number, file: string): string {
  return `\n## Baseline\n\n${marked} finding(s) above are accepted in the baseline \`${file.replace(/`/g, "'")}\` and do not fail the run.\n`;
}
