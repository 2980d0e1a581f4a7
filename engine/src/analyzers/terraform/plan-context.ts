/**
 * Plan context (docs/decisions.md "Plan context"): the companions of a plan-JSON unit — the other planned
 * resources that configure it (an S3 bucket's public-access block, encryption, versioning,
 * logging, policy, lifecycle, replication and notification resources; a security group's rules; a
 * subnet's NSG association; the public IP of a NIC; a VM's backup protection and extensions).
 * They are found, per COMPANION_LINKS, through the plan's `configuration` section: the
 * `references` of the linking attribute's expression (`aws_s3_bucket.b.id`, `module.m.out`
 * through the module's outputs, `var.x` through the calling module's arguments; JSON Output
 * Format, "Configuration Representation"), and, when the attribute has no references (no
 * configuration section, a literal), by equal known values (a block's `bucket` equal to the
 * bucket's `bucket` or `id`).
 *
 * Stored on the unit as `metadata.context` (always an array on a managed plan-JSON unit, empty
 * when it has no companion) and `metadata.context_digest` (hex SHA-256 of the canonical list;
 * only when it is not empty). The unit hash does not cover either: triage records stay keyed by
 * the unit; the analysis cache key adds the digest (analysis/run-job.ts).
 */
import type { AnalysisUnit } from '../../core/unit';
import { type Companion, withContext } from '../common/context';
import { isRecord } from './plan-values';

export type { Companion } from '../common/context';

/**
 * `companion` resources configure `target` resources. `via` says which side holds the linking
 * attribute `path` (a nested block path: `ip_configuration.public_ip_address_id`); `keys` are
 * the other side's attributes its value may equal (value fallback). `plan`: an account-wide
 * companion that configures every target of the plan (no attribute links them).
 */
interface CompanionLink {
  readonly target: string;
  readonly companion: string;
  readonly via: 'companion' | 'target' | 'plan';
  readonly path: readonly string[];
  readonly keys: readonly string[];
}

const onBucket = (companion: string): CompanionLink => ({ target: 'aws_s3_bucket', companion, via: 'companion', path: ['bucket'], keys: ['bucket', 'id'] });
const onGroup = (companion: string): CompanionLink => ({
  target: 'aws_security_group',
  companion,
  via: 'companion',
  path: ['security_group_id'],
  keys: ['id'],
});

const AZURE_VM_TYPES = ['azurerm_virtual_machine', 'azurerm_linux_virtual_machine', 'azurerm_windows_virtual_machine'] as const;
const onVm = (target: string, companion: string, attribute: string): CompanionLink => ({
  target,
  companion,
  via: 'companion',
  path: [attribute],
  keys: ['id'],
});

/** Which resources configure which; one line per pair, in the order companions are listed. */
export const COMPANION_LINKS: readonly CompanionLink[] = [
  onBucket('aws_s3_bucket_public_access_block'),
  onBucket('aws_s3_bucket_server_side_encryption_configuration'),
  onBucket('aws_s3_bucket_versioning'),
  onBucket('aws_s3_bucket_logging'),
  onBucket('aws_s3_bucket_policy'),
  onBucket('aws_s3_bucket_acl'),
  onBucket('aws_s3_bucket_ownership_controls'),
  onBucket('aws_s3_bucket_lifecycle_configuration'),
  onBucket('aws_s3_bucket_replication_configuration'), // `bucket` is the replication source
  onBucket('aws_s3_bucket_notification'),
  { target: 'aws_s3_bucket', companion: 'aws_s3_account_public_access_block', via: 'plan', path: [], keys: [] },
  onGroup('aws_security_group_rule'),
  onGroup('aws_vpc_security_group_ingress_rule'),
  onGroup('aws_vpc_security_group_egress_rule'),
  { target: 'azurerm_subnet', companion: 'azurerm_subnet_network_security_group_association', via: 'companion', path: ['subnet_id'], keys: ['id'] },
  { target: 'aws_secretsmanager_secret', companion: 'aws_secretsmanager_secret_rotation', via: 'companion', path: ['secret_id'], keys: ['id', 'arn'] },
  ...AZURE_VM_TYPES.map((target) => onVm(target, 'azurerm_backup_protected_vm', 'source_vm_id')),
  ...AZURE_VM_TYPES.map((target) => onVm(target, 'azurerm_virtual_machine_extension', 'virtual_machine_id')),
  { target: 'azurerm_network_interface', companion: 'azurerm_public_ip', via: 'target', path: ['ip_configuration', 'public_ip_address_id'], keys: ['id'] },
  { target: 'azurerm_firewall', companion: 'azurerm_public_ip', via: 'target', path: ['ip_configuration', 'public_ip_address_id'], keys: ['id'] },
];

/** A resource change as the context search sees it. */
interface Change {
  readonly i: number;
  readonly type: string;
  /** Module instance (`module.a["x"]`), '' for the root module. */
  readonly instance: string;
  /** Module path without instance keys (`module.a`), '' for the root. */
  readonly modulePath: string;
  /** `type.name` or `data.type.name`. */
  readonly resource: string;
  /** Instance key suffix (`[0]`, `["k"]`), '' when none. */
  readonly key: string;
  /** Raw planned values (`after`, else `before`), for the value fallback only; never stored. */
  readonly raw: unknown;
}

interface ModuleConfig {
  readonly resources: Map<string, Record<string, unknown>>;
  readonly outputs: Record<string, unknown>;
  readonly calls: Record<string, unknown>;
}

/** Where a reference points: a resource of a module path, in one module instance (null = any). */
interface Target {
  readonly modulePath: string;
  readonly resource: string;
  readonly instance: string | null;
  readonly key: string | null;
}

const KEY = String.raw`\[(?:\d+|"(?:[^"\\]|\\.)*")\]`;
const KEYS_RE = new RegExp(KEY, 'g');
const RESOURCE_REF_RE = new RegExp(`^((?:data\\.)?[a-z][a-z0-9_-]*\\.[A-Za-z_][\\w-]*)(${KEY})?`);
const MODULE_REF_RE = new RegExp(`^module\\.([A-Za-z_][\\w-]*)(${KEY})?\\.([A-Za-z_][\\w-]*)`);
const VAR_REF_RE = /^var\.([A-Za-z_][\w-]*)/;
const NOT_RESOURCES = new Set(['module', 'var', 'local', 'each', 'count', 'path', 'terraform', 'self']);
const MAX_DEPTH = 8;

/**
 * Adds `metadata.context` (and `context_digest` when not empty) to the managed units of a plan:
 * `units[i]` must be the unit of `changes[i]` (plan-json.ts planJsonUnits), carrying its masked
 * planned values in `metadata.values`. Returns new unit objects; hashes are unchanged. Never
 * throws on a malformed `configuration` (it is only read where it has the expected shape).
 */
export function withPlanContext(plan: Record<string, unknown>, changes: readonly unknown[], units: readonly AnalysisUnit[]): AnalysisUnit[] {
  const parsed = changes.map(toChange);
  const byType = new Map<string, Change[]>(); // plan order within each type
  for (const c of parsed) {
    if (c === null) continue;
    const list = byType.get(c.type);
    if (list) list.push(c);
    else byType.set(c.type, [c]);
  }
  const config = configIndex(plan.configuration);
  const found = new Map<number, { link: number; companion: number }[]>();
  COMPANION_LINKS.forEach((link, l) => {
    const referrerType = link.via === 'companion' ? link.companion : link.target;
    const refereeType = link.via === 'companion' ? link.target : link.companion;
    const ofType = byType.get(refereeType) ?? [];
    if (ofType.length === 0) return;
    const referees = indexReferees(ofType, link.keys);
    for (const referrer of byType.get(referrerType) ?? []) {
      for (const referee of link.via === 'plan' ? ofType : linkedBy(referrer, link, referees, config)) {
        const [target, companion] = link.via === 'companion' ? [referee, referrer] : [referrer, referee];
        const list = found.get(target.i) ?? [];
        if (!list.some((x) => x.companion === companion.i)) list.push({ link: l, companion: companion.i });
        found.set(target.i, list);
      }
    }
  });
  return units.map((unit, i) => {
    if (parsed[i] === null) return unit;
    const pairs = found.get(i);
    const context =
      pairs === undefined
        ? []
        : pairs
            .sort((a, b) => a.link - b.link || compare(units[a.companion].name, units[b.companion].name))
            .map(({ companion }) => companionOf(units[companion]));
    return { ...unit, metadata: withContext(unit.metadata, context) };
  });
}

function companionOf(unit: AnalysisUnit): Companion {
  const address = typeof unit.metadata.address === 'string' ? unit.metadata.address : unit.name;
  return { address, type: unit.type, action: unit.action, values: unit.metadata.values ?? null };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A managed, current (not deposed) resource change; null for anything else. */
function toChange(rc: unknown, i: number): Change | null {
  if (!isRecord(rc) || !isRecord(rc.change) || typeof rc.type !== 'string' || typeof rc.name !== 'string') return null;
  if ((rc.mode ?? 'managed') !== 'managed' || typeof rc.deposed === 'string') return null;
  const instance = typeof rc.module_address === 'string' ? rc.module_address : '';
  const key = typeof rc.index === 'number' ? `[${rc.index}]` : typeof rc.index === 'string' ? `[${JSON.stringify(rc.index)}]` : '';
  const raw = rc.change.after ?? rc.change.before ?? null;
  return { i, type: rc.type, instance, modulePath: instance.replace(KEYS_RE, ''), resource: `${rc.type}.${rc.name}`, key, raw };
}

/** The referees of one link type, indexed by configuration address and by key values. */
interface Referees {
  readonly byResource: Map<string, Change[]>;
  readonly byValue: Map<string, Change[]>;
}

function indexReferees(referees: readonly Change[], keys: readonly string[]): Referees {
  const byResource = new Map<string, Change[]>();
  const byValue = new Map<string, Change[]>();
  const add = (map: Map<string, Change[]>, key: string, c: Change): void => {
    const list = map.get(key);
    if (!list) map.set(key, [c]);
    else if (list[list.length - 1] !== c) list.push(c);
  };
  for (const c of referees) {
    add(byResource, `${c.modulePath}|${c.resource}`, c);
    for (const k of keys) {
      const v = isRecord(c.raw) ? c.raw[k] : undefined;
      if (typeof v === 'string' && v !== '') add(byValue, v, c);
    }
  }
  return { byResource, byValue };
}

/**
 * The referees `referrer` points at through `link.path`: by the expression's references when
 * they name a resource, else by equal known values.
 */
function linkedBy(referrer: Change, link: CompanionLink, referees: Referees, config: Map<string, ModuleConfig>): Change[] {
  const expressions = config.get(referrer.modulePath)?.resources.get(referrer.resource);
  const refs = expressions ? referencesAt(expressions, link.path) : [];
  const values = new Set(valuesAt(referrer.raw, link.path));
  const byValue = (c: Change): boolean => [...values].some((v) => referees.byValue.get(v)?.includes(c));
  const scope = { modulePath: referrer.modulePath, instance: referrer.instance as string | null };
  const targets = refs.flatMap((ref) => resolve(ref, scope, config, 0));
  if (targets.length === 0) return [...new Set([...values].flatMap((v) => referees.byValue.get(v) ?? []))];
  const matched = targets.flatMap((t) => {
    const candidates = (referees.byResource.get(`${t.modulePath}|${t.resource}`) ?? []).filter(
      (c) => (t.instance === null || c.instance === t.instance) && (t.key === null || c.key === t.key),
    );
    return disambiguate(candidates, referrer, byValue);
  });
  return [...new Set(matched)];
}

/**
 * One candidate from several instances a reference names without a key (`aws_s3_bucket.b`
 * under `count`): the one whose values match, else the one with the referrer's own key and
 * module instance; none when still ambiguous (a wrong companion is worse than none).
 */
function disambiguate(candidates: Change[], referrer: Change, byValue: (c: Change) => boolean): Change[] {
  if (candidates.length <= 1) return candidates;
  for (const keep of [byValue, (c: Change) => c.key === referrer.key && c.instance === referrer.instance]) {
    const kept = candidates.filter(keep);
    if (kept.length === 1) return kept;
  }
  return [];
}

/** Every `references` entry of the expression at `path` (nested blocks are arrays of objects). */
function referencesAt(expressions: Record<string, unknown>, path: readonly string[]): string[] {
  let level: unknown[] = [expressions];
  for (const step of path) {
    level = level.flatMap((e) => (Array.isArray(e) ? e : [e])).flatMap((e) => (isRecord(e) && step in e ? [e[step]] : []));
  }
  return level.flatMap((e) => (Array.isArray(e) ? e : [e])).flatMap(refsOf);
}

/** The `references` of one expression object; [] for anything else. */
function refsOf(expression: unknown): string[] {
  return isRecord(expression) && Array.isArray(expression.references) ? expression.references.filter((r): r is string => typeof r === 'string') : [];
}

/** The known string values at `path` of raw planned values (through nested block lists). */
function valuesAt(raw: unknown, path: readonly string[]): string[] {
  let level: unknown[] = [raw];
  for (const step of path) {
    level = level.flatMap((v) => (Array.isArray(v) ? v : [v])).flatMap((v) => (isRecord(v) && step in v ? [v[step]] : []));
  }
  return level.flatMap((v) => (Array.isArray(v) ? v : [v])).filter((v): v is string => typeof v === 'string' && v !== '');
}

/** Resolves one reference, seen from `scope`, to resource targets (through module outputs and variables). */
function resolve(ref: string, scope: { modulePath: string; instance: string | null }, config: Map<string, ModuleConfig>, depth: number): Target[] {
  if (depth > MAX_DEPTH) return [];
  const module = MODULE_REF_RE.exec(ref);
  if (module) {
    const [, name, key, output] = module;
    const call = config.get(scope.modulePath)?.calls[name];
    const childPath = join(scope.modulePath, `module.${name}`);
    const repeated = isRecord(call) && ('count_expression' in call || 'for_each_expression' in call);
    const instance = scope.instance === null || (repeated && !key) ? null : `${join(scope.instance, `module.${name}`)}${key ?? ''}`;
    const expression = config.get(childPath)?.outputs[output];
    const refs = isRecord(expression) ? refsOf(expression.expression) : [];
    return refs.flatMap((r) => resolve(r, { modulePath: childPath, instance }, config, depth + 1));
  }
  const variable = VAR_REF_RE.exec(ref);
  if (variable) {
    const parentPath = scope.modulePath.replace(/(?:^|\.)module\.[A-Za-z_][\w-]*$/, '');
    const name = /module\.([A-Za-z_][\w-]*)$/.exec(scope.modulePath)?.[1];
    const call = name ? config.get(parentPath)?.calls[name] : undefined;
    if (!isRecord(call) || !isRecord(call.expressions)) return [];
    const parentInstance = scope.instance === null ? null : scope.instance.replace(new RegExp(`(?:^|\\.)module\\.${name}(?:${KEY})?$`), '');
    return referencesAt(call.expressions, [variable[1]]).flatMap((r) => resolve(r, { modulePath: parentPath, instance: parentInstance }, config, depth + 1));
  }
  const resource = RESOURCE_REF_RE.exec(ref);
  if (!resource || NOT_RESOURCES.has(resource[1].split('.')[0])) return [];
  return [{ modulePath: scope.modulePath, resource: resource[1], instance: scope.instance, key: resource[2] ?? null }];
}

function join(prefix: string, segment: string): string {
  return prefix === '' ? segment : `${prefix}.${segment}`;
}

/** Module path (`''`, `module.a`, `module.a.module.b`) → its resources' expressions, outputs and calls. */
function configIndex(configuration: unknown): Map<string, ModuleConfig> {
  const index = new Map<string, ModuleConfig>();
  const walk = (module: unknown, path: string, depth: number): void => {
    if (!isRecord(module) || depth > MAX_DEPTH * 4) return;
    const resources = new Map<string, Record<string, unknown>>();
    for (const r of Array.isArray(module.resources) ? module.resources : []) {
      if (!isRecord(r) || typeof r.type !== 'string' || typeof r.name !== 'string' || !isRecord(r.expressions)) continue;
      resources.set(`${r.mode === 'data' ? 'data.' : ''}${r.type}.${r.name}`, r.expressions);
    }
    const calls = isRecord(module.module_calls) ? module.module_calls : {};
    index.set(path, { resources, outputs: isRecord(module.outputs) ? module.outputs : {}, calls });
    for (const [name, call] of Object.entries(calls)) {
      if (isRecord(call)) walk(call.module, join(path, `module.${name}`), depth + 1);
    }
  };
  if (isRecord(configuration)) walk(configuration.root_module, '', 0);
  return index;
}
