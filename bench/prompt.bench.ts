/**
 * Item 5: prompt size in tokens of a typical AWS unit (median body among the corpus's aws_*
 * plan units) with the terraform rulesets, counted with js-tiktoken (o200k_base, the GPT-4o
 * family's encoding; cl100k_base beside it), and whether the ruleset is a byte-identical prefix
 * across units: buildPrompt's system parts for two units, and the request bodies the fake
 * provider received for different units (when the job-runner bench captured them).
 */
import { getEncoding } from 'js-tiktoken';
import { terraformAnalyzer } from '../engine/src/analyzers/terraform/index';
import { buildPrompt } from '../engine/src/llm/prompt';
import { loadBuiltinRuleset } from '../engine/src/rules/ruleset';
import { selectRules } from '../engine/src/rules/select';
import type { AnalysisUnit } from '../engine/src/core/unit';
import { corpusFile, corpusFiles } from '../tests/corpus';
import type { RecordedRequest } from '../tests/fakes/llm-provider-server';
import { corpusResourceChanges, planOfUnits, type BenchRow } from './lib';

export async function benchPrompt(requests: readonly RecordedRequest[] = [], log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const o200k = getEncoding('o200k_base');
  const cl100k = getEncoding('cl100k_base');
  const units = terraformAnalyzer.ingest!(planOfUnits(200, 'prompt')).filter((u) => u.type.startsWith('aws_'));
  if (units.length < 2) throw new Error('the corpus holds fewer than two AWS plan units');
  const bySize = [...units].sort((a, b) => a.body.length - b.body.length);
  const typical = bySize[Math.floor(bySize.length / 2)];
  const other = bySize.find((u) => u.hash !== typical.hash && u.body !== typical.body)!;

  const rows: BenchRow[] = [];
  for (const variant of ['default', 'aws'] as const) {
    const rules = loadBuiltinRuleset('terraform', variant);
    const p = buildPrompt({ rules, unit: typical });
    const sys = o200k.encode(p.system).length;
    const user = o200k.encode(p.user).length;
    const sysCl = cl100k.encode(p.system).length;
    const userCl = cl100k.encode(p.user).length;
    log(
      `  prompt (${variant} ruleset): ${typical.type} body ${typical.body.length} chars; system ${sys} + user ${user} tokens (o200k), ${sysCl} + ${userCl} (cl100k); ruleset alone ${o200k.encode(rules).length}`,
    );
    rows.push({
      item: '5 prompt',
      figure: `tokens, typical AWS unit (${typical.type}), ${variant === 'default' ? 'default' : 'default + aws'} ruleset`,
      value: `${sys + user} (system ${sys} + unit ${user})`,
      baseline: `cl100k_base ${sysCl + userCl}; ruleset alone ${o200k.encode(rules).length}`,
      target: '(measure)',
      pass: null,
      note: 'o200k_base (js-tiktoken)',
    });
  }

  rows.push(...selectionRows(typical, o200k.encode.bind(o200k), log));

  const rules = loadBuiltinRuleset('terraform', 'default');
  const a = buildPrompt({ rules, unit: typical });
  const b = buildPrompt({ rules, unit: other });
  const systemsEqual = Buffer.from(a.system).equals(Buffer.from(b.system));
  rows.push({
    item: '5 prompt',
    figure: 'buildPrompt system part identical across two units',
    value: systemsEqual ? `yes (${Buffer.byteLength(a.system)} bytes)` : 'no',
    baseline: `user parts differ: ${a.user !== b.user}`,
    target: 'byte-identical',
    pass: systemsEqual,
  });

  // Wire level: the bodies the server actually sent for different units. Units of different
  // clouds get different rule variants (default + aws, ...), so the prefix is checked among the
  // units sharing a ruleset (the largest such group), and reported across all units as a note.
  const sent = requests.filter((r) => r.backend !== 'unknown' && r.system !== '' && r.user !== '');
  const distinct = sent.filter((r, i) => sent.findIndex((s) => s.user === r.user) === i);
  const groups = new Map<string, RecordedRequest[]>();
  for (const r of distinct) groups.set(r.system, [...(groups.get(r.system) ?? []), r]);
  const group = [...groups.values()].sort((x, y) => y.length - x.length)[0] ?? [];
  if (group.length >= 2) {
    const bodies = group.slice(0, 20).map((r) => JSON.stringify(r.body));
    const common = Math.min(...bodies.slice(1).map((body) => commonPrefix(bodies[0], body)));
    const across =
      distinct.length > 1 ? Math.min(...distinct.slice(1).map((r) => commonPrefix(JSON.stringify(distinct[0].body), JSON.stringify(r.body)))) : common;
    const escaped = JSON.stringify(group[0].system);
    const at = bodies[0].indexOf(escaped);
    const systemEnd = at < 0 ? -1 : Buffer.byteLength(bodies[0].slice(0, at + escaped.length));
    rows.push({
      item: '5 prompt',
      figure: `request bodies of ${bodies.length} units sharing a ruleset: common leading bytes`,
      value: `${common} bytes`,
      baseline: systemEnd < 0 ? 'system text not found in the body' : `system text ends at byte ${systemEnd}`,
      target: 'prefix covers instructions + ruleset',
      pass: systemEnd >= 0 && common >= systemEnd,
      note: `${group[0].backend} wire format (re-serialised from the parsed body); ${groups.size} distinct system texts among ${distinct.length} units (per-cloud rule variants); common prefix across all units ${across} bytes`,
    });
  } else {
    rows.push({
      item: '5 prompt',
      figure: 'request bodies: common leading bytes',
      value: 'not measured',
      baseline: '-',
      target: 'prefix covers instructions + ruleset',
      pass: null,
      note: 'fewer than two captured provider requests sharing a ruleset (the job-runner bench did not run)',
    });
  }
  return rows;
}

/**
 * Issue 15: prompt tokens before (the unit's whole rule variant) and after (only the rules that
 * apply, rules/select.ts) for the typical AWS unit (an `aws_s3_bucket`) and on average over
 * every corpus plan unit (tfplan-json, tfplan-text).
 */
function selectionRows(typical: AnalysisUnit, encode: (text: string) => number[], log: (line: string) => void): BenchRow[] {
  const rulesFor = (unit: AnalysisUnit): string => loadBuiltinRuleset('terraform', terraformAnalyzer.ruleVariantFor!(unit) ?? 'default');
  const tokens = (unit: AnalysisUnit, rules: string): number => {
    const p = buildPrompt({ rules, unit });
    return encode(p.system).length + encode(p.user).length;
  };
  const bucket = typical;
  const rows: BenchRow[] = [];
  if (bucket) {
    const full = rulesFor(bucket);
    const selected = selectRules(full, bucket);
    const before = tokens(bucket, full);
    const after = tokens(bucket, selected.text);
    log(
      `  ${bucket.type} unit: ${before} prompt tokens with the whole default + aws ruleset, ${after} with the ${selected.ruleIds.length} rules that apply (${selected.ruleIds.join(', ')})`,
    );
    rows.push({
      item: '15 prompt',
      figure: `prompt tokens, typical AWS unit (${bucket.type}), rules that apply`,
      value: String(after),
      baseline: `${before} (whole ruleset)`,
      target: '(measure)',
      pass: null,
      note: `${selected.ruleIds.length} rules sent; no companion in the corpus plan; o200k_base`,
    });
    const withContext = bucketWithCompanions();
    if (withContext) {
      const companions = (withContext.metadata.context as unknown[]).length;
      const total = tokens(withContext, selectRules(rulesFor(withContext), withContext).text);
      log(`  ${withContext.type} unit with ${companions} companions as plan context: ${total} prompt tokens (rules that apply)`);
      rows.push({
        item: '15 prompt',
        figure: `prompt tokens, ${withContext.type} unit + ${companions} companions (plan context), rules that apply`,
        value: String(total),
        baseline: `${after} without context`,
        target: '<= 4000',
        pass: total <= 4000,
        note: 'companions synthetic (public-access block, SSE, versioning, logging of the corpus bucket); o200k_base',
      });
    }
  }
  const units = [...corpusFiles('tfplan-json', '.json'), ...corpusFiles('tfplan-text', '.txt')].flatMap((f) => {
    try {
      return terraformAnalyzer.ingest!(
        corpusFile(f)
          .toString('utf8')
          .replace(/^\uFEFF/, ''),
      );
    } catch {
      return [];
    }
  });
  let before = 0;
  let after = 0;
  for (const unit of units) {
    const full = rulesFor(unit);
    before += tokens(unit, full);
    after += tokens(unit, selectRules(full, unit).text);
  }
  const avgBefore = Math.round(before / Math.max(1, units.length));
  const avgAfter = Math.round(after / Math.max(1, units.length));
  log(`  corpus plan units (${units.length}): average prompt ${avgBefore} tokens before selection, ${avgAfter} after`);
  rows.push({
    item: '15 prompt',
    figure: `prompt tokens, average over ${units.length} corpus plan units`,
    value: String(avgAfter),
    baseline: `${avgBefore} (whole ruleset)`,
    target: '(measure)',
    pass: null,
    note: 'o200k_base',
  });
  return rows;
}

/**
 * The corpus's aws_s3_bucket with the four companions of a hardened bucket (public-access block,
 * default encryption, versioning, access logging), linked by its name as a plan without a
 * configuration section is (plan-context.ts value fallback). Synthetic: no corpus plan holds a
 * bucket with companions. null when the corpus has no bucket.
 */
function bucketWithCompanions(): AnalysisUnit | null {
  const bucket = corpusResourceChanges((rc) => rc.type === 'aws_s3_bucket' && rc.mode !== 'data')[0];
  const after = (bucket?.change as { after?: { bucket?: unknown } } | undefined)?.after;
  if (!bucket || typeof after?.bucket !== 'string') return null;
  const name = after.bucket;
  const companion = (type: string, values: Record<string, unknown>) => ({
    address: `${type}.data`,
    mode: 'managed',
    type,
    name: 'data',
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: {
      actions: ['create'],
      before: null,
      after: { bucket: name, expected_bucket_owner: null, ...values },
      after_unknown: { id: true },
      before_sensitive: false,
      after_sensitive: {},
    },
  });
  const plan = {
    format_version: '1.2',
    resource_changes: [
      bucket,
      companion('aws_s3_bucket_public_access_block', {
        block_public_acls: true,
        block_public_policy: true,
        ignore_public_acls: true,
        restrict_public_buckets: true,
      }),
      companion('aws_s3_bucket_server_side_encryption_configuration', {
        rule: [{ apply_server_side_encryption_by_default: [{ kms_master_key_id: 'alias/aws/s3', sse_algorithm: 'aws:kms' }], bucket_key_enabled: true }],
      }),
      companion('aws_s3_bucket_versioning', { versioning_configuration: [{ status: 'Enabled', mfa_delete: null }] }),
      companion('aws_s3_bucket_logging', { target_bucket: `${name}-logs`, target_prefix: 'access/', target_grant: [] }),
    ],
  };
  return terraformAnalyzer.ingest!(JSON.stringify(plan)).find((u) => u.type === 'aws_s3_bucket') ?? null;
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return Buffer.byteLength(a.slice(0, i));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchPrompt().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
