/**
 * Generates docs/coverage.md: for every resource type (or object kind) a built-in rule names on
 * its `Applies to:` line, the peer scanners' check ids the rule maps to (its `Maps to:` line:
 * Checkov `CKV_*`, tfsec/Trivy `AVD-*`, KICS query ids) and our rule id; then, for the AWS, Azure
 * and Google types with the most Checkov checks (bench/peer-checks/checkov-terraform.tsv), every
 * Checkov check with the rule covering it or the reason none does.
 *
 * `npx tsx bench/coverage-table.ts` prints the table; `--write` writes docs/coverage.md.
 * tests/coverage-table.test.ts fails when the committed file differs from this output, and when a
 * rule whose check tests `unit.type` names a type on `Applies to:` that the check never tests.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ASTNode, parse } from '@marcbachmann/cel-js';
import { parseRules, type RuleDef } from '../engine/src/rules/ruleset';

const RULES_DIR = new URL('../resources/rules/', import.meta.url);
export const COVERAGE_DOC = new URL('../docs/coverage.md', import.meta.url);

/** One built-in rule as the table reads it. */
export interface CoverageRule {
  readonly analyzer: string;
  readonly rule: RuleDef;
  /** Peer check ids of the rule's `Maps to:` line (empty when it has none or names none). */
  readonly peers: readonly string[];
}

/**
 * Why a peer check of a reviewed type has no rule (peer id → reason); a check absent here and from
 * every `Maps to:` line is listed as "no rule yet".
 */
const NOT_COVERED: Readonly<Record<string, string>> = {
  CKV_AWS_19:
    'S3 encrypts every new object (SSE-S3) since January 2023: an absent configuration is not a finding; a removed or downgraded one is TF-AWS-S3-ENCRYPTION-WEAKENED',
  CKV_AWS_26: 'partial: TF-AWS-SERVICE-ENCRYPTION-OFF names `aws_sns_topic` but its check does not test it (judged by the model)',
  CKV_AWS_32: 'partial: TF-AWS-RESOURCE-POLICY-PUBLIC names `aws_ecr_repository_policy` but its check does not test it (judged by the model)',
  CKV_AWS_33: 'partial: TF-AWS-RESOURCE-POLICY-PUBLIC names `aws_kms_key` but its check does not test it (judged by the model)',
  CKV_AWS_168: 'partial: TF-AWS-RESOURCE-POLICY-PUBLIC names the SQS queue and policy but its check does not test them (judged by the model)',
  CKV_AWS_169: 'partial: TF-AWS-RESOURCE-POLICY-PUBLIC names the SNS topic and policy but its check does not test them (judged by the model)',
  CKV_AWS_228: 'partial: TF-AWS-TLS-POLICY-OUTDATED names the OpenSearch domain but its check does not test it (judged by the model)',
  CKV_GCP_14: 'partial: TF-GEN-BACKUP-DISABLED names `google_sql_database_instance` but its check does not test it (judged by the model)',
  CKV_GCP_43: 'partial: TF-GEN-KEY-ROTATION-DISABLED names `google_kms_crypto_key` but its check does not test it (judged by the model)',
  CKV_AZURE_50:
    'contradicts CKV2_AZURE_10 (the antimalware agent is an extension): which extensions a VM may run is judged by the model, TF-AZURE-VM-ANTIMALWARE-MISSING covers the antimalware one',
  CKV2_AWS_5: 'hygiene: a security group attached to nothing exposes nothing',
  CKV2_AWS_23: 'hygiene: a dangling DNS record is a takeover risk of the zone, not a setting of this resource (no rule yet for aws_route53_record)',
};

/** Types reviewed against the peer catalogue: at least this many, the ones with the most peer checks. */
const REVIEWED_TYPES = 150;
const CHECKOV_CATALOGUE = new URL('./peer-checks/checkov-terraform.tsv', import.meta.url);

/** One peer check of the catalogue (bench/peer-checks/checkov-terraform.tsv). */
export interface PeerCheck {
  readonly id: string;
  readonly types: readonly string[];
  readonly name: string;
}

/** The Checkov catalogue: one entry per check id (`#` lines and the header skipped). Throws when the file is missing. */
export function peerCatalogue(): PeerCheck[] {
  return readFileSync(CHECKOV_CATALOGUE, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#') && !l.startsWith('id\t'))
    .map((l) => {
      const [id, types, name] = l.split('\t');
      return { id, types: types.split(','), name: name ?? '' };
    });
}

const PEER_ID_RE = /^(CKV2?_[A-Z0-9]+_\d+|AVD-[A-Z0-9]+-\d{4}|[a-z0-9]+(?:-[a-z0-9]+)+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** Every rule of every built-in ruleset file, in analyzer and file order. Throws when a ruleset does not parse. */
export function builtinRules(): CoverageRule[] {
  const root = fileURLToPath(RULES_DIR);
  return readdirSync(root)
    .sort()
    .flatMap((analyzer) =>
      readdirSync(`${root}${analyzer}`)
        .filter((f) => f.endsWith('.md'))
        .sort()
        .flatMap((file) => parseRules(readFileSync(`${root}${analyzer}/${file}`, 'utf8')).map((rule) => ({ analyzer, rule, peers: peerIds(rule.body) }))),
    );
}

/** The ids of a rule body's `Maps to:` line; prose in parentheses names none. */
function peerIds(body: string): string[] {
  const line = /^Maps to:[ \t]*(.*)$/m.exec(body)?.[1] ?? '';
  return line
    .split(',')
    .map((s) => s.trim())
    .filter((s) => PEER_ID_RE.test(s));
}

/**
 * Types on `Applies to:` (no `*`, no prose) for which the rule's check can never be true: the check
 * evaluated with `unit.type` set to the type and everything else unknown (three-valued logic over
 * `||`, `&&`, `!`, `?:`; `unit.type ==`, `!=`, `in [...]`, `.startsWith`, `.endsWith` known) is
 * false. [] for a rule without a check, or one that does not test the type.
 */
export function untestedTypes(rule: RuleDef): string[] {
  if (!rule.check || !/\bunit\.type\b/.test(rule.check)) return [];
  let ast: ASTNode;
  try {
    ast = parse(rule.check).ast;
  } catch {
    return [];
  }
  return rule.applies_to.filter((t) => /^[A-Za-z][\w:.-]*$/.test(t) && knownFor(ast, t) === false);
}

/** true, false, or undefined when the value does not follow from the unit's type alone. */
function knownFor(node: ASTNode, type: string): boolean | undefined {
  const n = node as { op: string; args: unknown };
  const args = n.args as ASTNode[];
  switch (n.op) {
    case '||': {
      const [a, b] = [knownFor(args[0], type), knownFor(args[1], type)];
      return a === true || b === true ? true : a === false && b === false ? false : undefined;
    }
    case '&&': {
      const [a, b] = [knownFor(args[0], type), knownFor(args[1], type)];
      return a === false || b === false ? false : a === true && b === true ? true : undefined;
    }
    case '!_': {
      const a = knownFor(n.args as ASTNode, type);
      return a === undefined ? undefined : !a;
    }
    case '?:': {
      const c = knownFor(args[0], type);
      if (c !== undefined) return knownFor(c ? args[1] : args[2], type);
      const [a, b] = [knownFor(args[1], type), knownFor(args[2], type)];
      return a === b ? a : undefined;
    }
    case '==':
    case '!=': {
      const other = isUnitType(args[0]) ? args[1] : isUnitType(args[1]) ? args[0] : null;
      const literal = other ? stringValue(other) : undefined;
      if (literal === undefined) return undefined;
      return n.op === '==' ? literal === type : literal !== type;
    }
    case 'in': {
      if (!isUnitType(args[0])) return undefined;
      const list = args[1] as { op: string; args: unknown };
      if (list.op !== 'list') return undefined;
      const items = (list.args as ASTNode[]).map(stringValue);
      return items.every((i) => i !== undefined) ? items.includes(type) : undefined;
    }
    case 'rcall': {
      const [name, receiver, callArgs] = n.args as [string, ASTNode, ASTNode[]];
      if (name === 'bind' && (receiver as { op: string; args: unknown }).op === 'id' && callArgs.length === 3) return knownFor(callArgs[2], type);
      const literal = callArgs.length === 1 ? stringValue(callArgs[0]) : undefined;
      if (!isUnitType(receiver) || literal === undefined) return undefined;
      if (name === 'startsWith') return type.startsWith(literal);
      if (name === 'endsWith') return type.endsWith(literal);
      return undefined;
    }
    default:
      return undefined;
  }
}

function isUnitType(node: ASTNode): boolean {
  const n = node as { op: string; args: unknown };
  if (n.op !== '.') return false;
  const [target, field] = n.args as [{ op: string; args: unknown }, string];
  return field === 'type' && target.op === 'id' && target.args === 'unit';
}

function stringValue(node: ASTNode): string | undefined {
  const n = node as { op: string; args: unknown };
  return n.op === 'value' && typeof n.args === 'string' ? n.args : undefined;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** docs/coverage.md as it should be committed (deterministic: sorted by type, then rule or peer id). */
export function coverageTable(rules: readonly CoverageRule[] = builtinRules(), catalogue: readonly PeerCheck[] = peerCatalogue()): string {
  const rows: { type: string; peers: string; ours: string; note: string }[] = [];
  for (const { analyzer, rule, peers } of rules) {
    for (const type of rule.applies_to) {
      if (type === '*' || !/^[A-Za-z][\w:.-]*$/.test(type)) continue;
      const note = !rule.check
        ? 'judgement only (no deterministic check)'
        : untestedTypes(rule).includes(type)
          ? 'partial: the check never tests this type (judged by the model only)'
          : '';
      rows.push({ type, peers: peers.join(', ') || '—', ours: `${rule.rule_id} (${analyzer})`, note });
    }
  }
  rows.sort((a, b) => a.type.localeCompare(b.type, 'en') || a.ours.localeCompare(b.ours, 'en'));
  const types = new Set(rows.map((r) => r.type));
  const mapped = rules.filter((r) => r.peers.length > 0).length;
  const review = peerReview(rules, catalogue);
  const head = [
    '# Coverage beside peer scanners',
    '',
    '<!-- Generated by bench/coverage-table.ts (`npx tsx bench/coverage-table.ts --write`); tests/coverage-table.test.ts keeps it equal to the rules. Do not edit by hand. -->',
    '',
    `Two tables. The first has one row per resource type (or object kind) that a built-in rule names on its \`Applies to:\` line, with the peer scanners' check ids the rule lists on its \`Maps to:\` line (Checkov \`CKV_*\`, tfsec/Trivy \`AVD-*\`, KICS query ids): ${types.size} types, ${rules.length} rules, ${mapped} of them with at least one confirmed peer id. The second goes the other way: every Checkov check of the ${review.types} AWS, Azure and Google Cloud types with the most Checkov checks (and of every other type a rule names), with the rule that covers it or the reason none does.`,
    '',
    "How far it goes: peer ids are only those confirmed from the peers' public sources (`—`: none confirmed); the second table reviews Checkov's Terraform checks (bench/peer-checks/checkov-terraform.tsv: ids, names and resource types read from Checkov's sources), not yet tfsec/Trivy's or KICS's, which appear only where a rule maps to them. A rule's ids are listed per rule, not per type (a rule covering `aws_db_instance` and `aws_rds_cluster` lists the ids of both).",
    '',
    '| Resource type | Peer check ids | Our rule | Note |',
    '| --- | --- | --- | --- |',
  ];
  const second = [
    '',
    '## Checkov checks of the most common types',
    '',
    `${review.rows.length} (type, check) pairs over ${review.types} types and ${review.checks} distinct Checkov checks: ${review.covered} pairs covered by a rule with a deterministic check (${percent(review.covered, review.rows.length)}), ${review.partial} partly (the rule names the type, the model judges it), ${review.rows.length - review.covered - review.partial} not covered (${review.reasoned} of them with a recorded reason, the rest "no rule yet"). Distinct checks covered: ${review.checksCovered} of ${review.checks} (${percent(review.checksCovered, review.checks)}).`,
    '',
    '| Resource type | Checkov check | Name | Our rule | Note |',
    '| --- | --- | --- | --- | --- |',
    ...review.rows.map((r) => `| \`${r.type}\` | ${r.id} | ${cell(r.name)} | ${cell(r.ours)} | ${cell(r.note)} |`),
  ];
  return `${[...head, ...rows.map((r) => `| \`${r.type}\` | ${cell(r.peers)} | ${cell(r.ours)} | ${cell(r.note)} |`), ...second].join('\n')}\n`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}

/** The per-type review of the Checkov catalogue: reviewed types, one row per (type, check), and the totals. */
export function peerReview(rules: readonly CoverageRule[], catalogue: readonly PeerCheck[]) {
  const counts = new Map<string, number>();
  for (const c of catalogue) for (const t of c.types) counts.set(t, (counts.get(t) ?? 0) + 1);
  const named = new Set(rules.flatMap((r) => r.rule.applies_to));
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], 'en')).slice(0, REVIEWED_TYPES);
  const reviewed = new Set([...top.map(([t]) => t), ...[...counts.keys()].filter((t) => named.has(t))]);
  const rows: { type: string; id: string; name: string; ours: string; note: string; status: 'covered' | 'partial' | 'none' }[] = [];
  for (const c of catalogue) {
    for (const type of c.types) {
      if (!reviewed.has(type)) continue;
      const mapping = rules.filter((r) => r.analyzer === 'terraform' && r.peers.includes(c.id)); // the catalogue holds Terraform checks
      const full = mapping.filter((r) => r.rule.check && !untestedTypes(r.rule).includes(type));
      const status = full.length > 0 ? 'covered' : mapping.length > 0 ? 'partial' : 'none';
      const ours = mapping.map((r) => r.rule.rule_id).join(', ') || 'not covered';
      const note = status === 'partial' ? 'partial: judged by the model only for this type' : status === 'none' ? (NOT_COVERED[c.id] ?? 'no rule yet') : '';
      rows.push({ type, id: c.id, name: c.name, ours, note, status });
    }
  }
  rows.sort((a, b) => a.type.localeCompare(b.type, 'en') || a.id.localeCompare(b.id, 'en', { numeric: true }));
  const ids = new Set(rows.map((r) => r.id));
  const coveredIds = new Set(rows.filter((r) => r.status === 'covered').map((r) => r.id));
  return {
    types: reviewed.size,
    rows,
    checks: ids.size,
    checksCovered: coveredIds.size,
    covered: rows.filter((r) => r.status === 'covered').length,
    partial: rows.filter((r) => r.status === 'partial').length,
    reasoned: rows.filter((r) => r.status === 'none' && r.id in NOT_COVERED).length,
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = coverageTable();
  if (process.argv.includes('--write')) writeFileSync(COVERAGE_DOC, table);
  else process.stdout.write(table);
}
