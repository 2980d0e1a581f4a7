/**
 * Generates docs/coverage.md: for every resource type (or object kind) a built-in rule names on
 * its `Applies to:` line, the peer scanners' check ids the rule maps to (its `Maps to:` line:
 * Checkov `CKV_*`, tfsec/Trivy `AVD-*`, KICS query ids) and our rule id; then, for the AWS, Azure
 * and Google types with the most Checkov checks (bench/peer-checks/checkov-terraform.tsv), every
 * Checkov, tfsec/Trivy and KICS check of those types with the rule covering it or the reason none
 * does. A Trivy or KICS check is covered by a rule listing its id or its Checkov equivalent
 * (bench/peer-checks/equivalents.tsv).
 *
 * `npx tsx bench/coverage-table.ts` prints the document; `--write` writes docs/coverage.md and prints
 * the figures per peer; `--figures` prints only the figures.
 * tests/coverage-table.test.ts fails when the committed file differs from this output, and when a
 * rule whose check tests `unit.type` names a type on `Applies to:` that the check never tests.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type ASTNode, parse } from '@marcbachmann/cel-js';
import { parseRules, type RuleDef } from '../engine/src/rules/ruleset';
import { type Catalogues, PEERS, type Peer, type PeerCheck, peerCatalogues } from './peer-catalogues';

import { NOT_COVERED } from './coverage-reasons';
export { type Catalogues, type Peer, type PeerCheck, peerCatalogue, peerCatalogues, peerEquivalents } from './peer-catalogues';

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

/** Types reviewed against the peer catalogue: at least this many, the ones with the most peer checks. */
const REVIEWED_TYPES = 150;
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
export function coverageTable(rules: readonly CoverageRule[] = builtinRules(), catalogues: Catalogues = peerCatalogues()): string {
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
  const reviews = peerReviews(rules, catalogues);
  const head = [
    '# Coverage beside peer scanners',
    '',
    '<!-- Generated by bench/coverage-table.ts (`npx tsx bench/coverage-table.ts --write`); tests/coverage-table.test.ts keeps it equal to the rules. Do not edit by hand. -->',
    '',
    `Four tables. The first has one row per resource type (or object kind) that a built-in rule names on its \`Applies to:\` line, with the peer scanners' check ids the rule lists on its \`Maps to:\` line (Checkov \`CKV_*\`, tfsec/Trivy \`AVD-*\`, KICS query ids): ${types.size} types, ${rules.length} rules, ${mapped} of them with at least one confirmed peer id. The other three go the other way: every Checkov, tfsec/Trivy and KICS Terraform check of the ${reviews.checkov.types} AWS, Azure and Google Cloud types with the most Checkov checks (and of every other type a rule names), with the rule that covers it or the reason none does.`,
    '',
    "How far it goes: peer ids are only those confirmed from the peers' public sources (`—`: none confirmed); the catalogues (bench/peer-checks/*-terraform.tsv) hold ids, names and resource types read from each peer's sources. A tfsec/Trivy or KICS check is also covered when a rule covers the Checkov check it checks the same fact as (bench/peer-checks/equivalents.tsv, each pair read from both sources); without such a pair it is \"no rule yet\" even where a rule may catch it. A rule's ids are listed per rule, not per type (a rule covering `aws_db_instance` and `aws_rds_cluster` lists the ids of both).",
    '',
    '| Resource type | Peer check ids | Our rule | Note |',
    '| --- | --- | --- | --- |',
  ];
  const sections = (['checkov', 'trivy', 'kics'] as const).flatMap((peer) => reviewSection(peer, reviews[peer]));
  return `${[...head, ...rows.map((r) => `| \`${r.type}\` | ${cell(r.peers)} | ${cell(r.ours)} | ${cell(r.note)} |`), ...sections].join('\n')}\n`;
}

/** One peer's review as a Markdown section: a summary line and one row per (type, check). */
function reviewSection(peer: Peer, review: PeerReview): string[] {
  const { title, column, checks } = PEERS[peer];
  const via = review.viaEquivalent > 0 ? `, ${review.viaEquivalent} of them through a Checkov equivalent` : '';
  return [
    '',
    `## ${title}`,
    '',
    `${review.rows.length} (type, check) pairs over ${review.types} types and ${review.checks} distinct ${checks}: ${review.covered} pairs covered by a rule with a deterministic check (${percent(review.covered, review.rows.length)}${via}), ${review.partial} partly (the rule names the type, the model judges it), ${review.rows.length - review.covered - review.partial} not covered (${review.reasoned} of them with a recorded reason, the rest "no rule yet"). Distinct checks covered: ${review.checksCovered} of ${review.checks} (${percent(review.checksCovered, review.checks)}).`,
    '',
    `| Resource type | ${column} | Name | Our rule | Note |`,
    '| --- | --- | --- | --- | --- |',
    ...review.rows.map((r) => `| \`${r.type}\` | ${r.id} | ${cell(r.name)} | ${cell(r.ours)} | ${cell(r.note)} |`),
  ];
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '0%' : `${Math.round((part / whole) * 100)}%`;
}

/** One (type, check) row of a peer review. */
export interface ReviewRow {
  readonly type: string;
  readonly id: string;
  readonly name: string;
  readonly ours: string;
  readonly note: string;
  readonly status: 'covered' | 'partial' | 'none';
  /** An uncovered row whose note gives a recorded reason (its own or its Checkov equivalent's). */
  readonly reasoned: boolean;
}

/** A peer's review: reviewed types, one row per (type, check), and the totals. */
export interface PeerReview {
  readonly types: number;
  readonly rows: readonly ReviewRow[];
  readonly checks: number;
  readonly checksCovered: number;
  readonly covered: number;
  readonly partial: number;
  readonly reasoned: number;
  /** Covered pairs whose rule lists the Checkov equivalent, not the check's own id. */
  readonly viaEquivalent: number;
}

/** The AWS, Azure and Google types reviewed: the REVIEWED_TYPES with the most Checkov checks and every type a rule names. */
function reviewedTypes(rules: readonly CoverageRule[], checkov: readonly PeerCheck[]): Set<string> {
  const counts = new Map<string, number>();
  for (const c of checkov) for (const t of c.types) counts.set(t, (counts.get(t) ?? 0) + 1);
  const named = new Set(rules.flatMap((r) => r.rule.applies_to));
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0], 'en')).slice(0, REVIEWED_TYPES);
  return new Set([...top.map(([t]) => t), ...[...counts.keys()].filter((t) => named.has(t))]);
}

/** The three reviews over the same types (those chosen from the Checkov catalogue). */
export function peerReviews(rules: readonly CoverageRule[], catalogues: Catalogues): Record<Peer, PeerReview> {
  const types = reviewedTypes(rules, catalogues.checkov);
  return {
    checkov: peerReview(rules, catalogues.checkov, { types }),
    trivy: peerReview(rules, catalogues.trivy, { types, equivalents: catalogues.equivalents }),
    kics: peerReview(rules, catalogues.kics, { types, equivalents: catalogues.equivalents }),
  };
}

/**
 * The per-type review of one peer catalogue. `types` defaults to those chosen from `catalogue`
 * itself (right for Checkov's); `equivalents` (peer id → Checkov ids) lets a rule listing the
 * Checkov id cover the peer check: covered when every equivalent is.
 */
export function peerReview(
  rules: readonly CoverageRule[],
  catalogue: readonly PeerCheck[],
  options: { types?: ReadonlySet<string>; equivalents?: ReadonlyMap<string, readonly string[]> } = {},
): PeerReview {
  const reviewed = options.types ?? reviewedTypes(rules, catalogue);
  const terraform = rules.filter((r) => r.analyzer === 'terraform'); // the catalogues hold Terraform checks
  const full = (r: CoverageRule, type: string) => Boolean(r.rule.check) && !untestedTypes(r.rule).includes(type);
  const rows: ReviewRow[] = [];
  let viaEquivalent = 0;
  for (const c of catalogue) {
    const same = options.equivalents?.get(c.id) ?? [];
    for (const type of c.types) {
      if (!reviewed.has(type)) continue;
      const direct = terraform.filter((r) => r.peers.includes(c.id));
      const byEquivalent = same.map((e) => terraform.filter((r) => r.peers.includes(e)));
      const equivalentFull = same.length > 0 && byEquivalent.every((rs) => rs.some((r) => full(r, type)));
      const mapping = [...new Set([...direct, ...byEquivalent.flat()])];
      const status = direct.some((r) => full(r, type)) || equivalentFull ? 'covered' : mapping.length > 0 ? 'partial' : 'none';
      if (status === 'covered' && !direct.some((r) => full(r, type))) viaEquivalent++;
      const ours = mapping.map((r) => r.rule.rule_id).join(', ') || 'not covered';
      const as = same.length > 0 ? `same fact as ${same.join(', ')}` : '';
      const reason = NOT_COVERED[c.id] ?? same.map((e) => NOT_COVERED[e]).find(Boolean);
      const note =
        status === 'covered'
          ? direct.length > 0
            ? ''
            : as
          : status === 'partial'
            ? 'partial: judged by the model only for this type'
            : [as, reason ?? 'no rule yet'].filter(Boolean).join('; ');
      rows.push({ type, id: c.id, name: c.name, ours, note, status, reasoned: status === 'none' && reason !== undefined });
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
    reasoned: rows.filter((r) => r.reasoned).length,
    viaEquivalent,
  };
}

/** One line per peer: distinct checks covered strictly, and (type, check) pairs covered. */
export function coverageFigures(rules: readonly CoverageRule[] = builtinRules(), catalogues: Catalogues = peerCatalogues()): string {
  const reviews = peerReviews(rules, catalogues);
  return (['checkov', 'trivy', 'kics'] as const)
    .map((peer) => {
      const r = reviews[peer];
      return `${peer}: ${r.checksCovered} of ${r.checks} distinct checks covered strictly (${percent(r.checksCovered, r.checks)}); pairs ${r.covered} of ${r.rows.length} (${r.viaEquivalent} through a Checkov equivalent), ${r.partial} partial, over ${r.types} types`;
    })
    .join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--figures')) process.stdout.write(`${coverageFigures()}\n`);
  else if (process.argv.includes('--write')) {
    writeFileSync(COVERAGE_DOC, coverageTable());
    process.stdout.write(`${coverageFigures()}\n`);
  } else process.stdout.write(coverageTable());
}
