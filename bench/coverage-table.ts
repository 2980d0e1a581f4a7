/**
 * Generates docs/coverage.md: for every resource type (or object kind) a built-in rule names on
 * its `Applies to:` line, the peer scanners' check ids the rule maps to (its `Maps to:` line:
 * Checkov `CKV_*`, tfsec/Trivy `AVD-*`, KICS query ids) and our rule id, followed by the peer
 * checks of the gap categories that are recorded as not covered, with the reason.
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

/** Peer checks of the gap categories that no rule covers yet, with the reason (facts, not ids we could not confirm). */
const NOT_COVERED: readonly { types: readonly string[]; peer: string; reason: string }[] = [
  {
    types: ['aws_s3_bucket'],
    peer: 'S3 event notifications (peer id not confirmed)',
    reason:
      'needs `aws_s3_bucket_notification` among the bucket companions (analyzers/terraform/plan-context.ts COMPANION_LINKS); without it every bucket configured by that separate resource would be a false positive',
  },
  {
    types: ['aws_s3_bucket'],
    peer: 'S3 cross-region replication (peer id not confirmed)',
    reason: 'needs `aws_s3_bucket_replication_configuration` among the bucket companions (as above)',
  },
  {
    types: ['azurerm_linux_virtual_machine', 'azurerm_windows_virtual_machine', 'azurerm_virtual_machine'],
    peer: 'VM backed up by Azure Backup (peer id not confirmed)',
    reason: 'needs `azurerm_backup_protected_vm` as a companion of the VM (no companion link yet)',
  },
  {
    types: ['azurerm_windows_virtual_machine', 'azurerm_virtual_machine'],
    peer: 'antimalware extension installed (peer id not confirmed)',
    reason: 'needs `azurerm_virtual_machine_extension` as a companion of the VM (no companion link yet)',
  },
  {
    types: ['AWS::EC2::SecurityGroup', 'AWS::EC2::SecurityGroupIngress'],
    peer: 'parameter default opens SSH/RDP to 0.0.0.0/0 (peer id not confirmed)',
    reason:
      'a check cannot read the template `Parameters` yet (`metadata.parameters` is not a variable of checks/run-checks.ts); CFN-SG-OPEN-INGRESS covers literal CIDRs',
  },
];

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

/** docs/coverage.md as it should be committed (deterministic: sorted by type, then rule id). */
export function coverageTable(rules: readonly CoverageRule[] = builtinRules()): string {
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
  for (const gap of NOT_COVERED) for (const type of gap.types) rows.push({ type, peers: gap.peer, ours: 'not covered', note: gap.reason });
  rows.sort((a, b) => a.type.localeCompare(b.type, 'en') || a.ours.localeCompare(b.ours, 'en'));
  const types = new Set(rows.map((r) => r.type));
  const mapped = rules.filter((r) => r.peers.length > 0).length;
  const head = [
    '# Coverage beside peer scanners',
    '',
    '<!-- Generated by bench/coverage-table.ts (`npx tsx bench/coverage-table.ts --write`); tests/coverage-table.test.ts keeps it equal to the rules. Do not edit by hand. -->',
    '',
    `One row per resource type (or object kind) that a built-in rule names on its \`Applies to:\` line, with the peer scanners' check ids the rule lists on its \`Maps to:\` line (Checkov \`CKV_*\`, tfsec/Trivy \`AVD-*\`, KICS query ids), then the peer checks of the gap categories recorded as not covered, with the reason. ${types.size} types, ${rules.length} rules, ${mapped} of them with at least one confirmed peer id.`,
    '',
    "How far it goes: the table lists the types our rules name and the gaps recorded so far; it is not yet the review of every Checkov, tfsec/Trivy and KICS check of the 150 most common AWS, Azure and Google types. A type absent from the table has not been reviewed. Peer ids are listed per rule, not per type (a rule covering `aws_db_instance` and `aws_rds_cluster` lists the ids of both), and only ids confirmed from the peers' public sources: `—` means none was confirmed.",
    '',
    '| Resource type | Peer check ids | Our rule | Note |',
    '| --- | --- | --- | --- |',
  ];
  return `${[...head, ...rows.map((r) => `| \`${r.type}\` | ${cell(r.peers)} | ${cell(r.ours)} | ${cell(r.note)} |`)].join('\n')}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const table = coverageTable();
  if (process.argv.includes('--write')) writeFileSync(COVERAGE_DOC, table);
  else process.stdout.write(table);
}
