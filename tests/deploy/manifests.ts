/**
 * Reading the deployment files for the tests beside this module: the Kubernetes manifests of
 * deploy/kubernetes (base resources, and an overlay rendered the way kustomize renders the subset
 * of features the overlays use), and Planwarden's own deterministic checks run over a file the
 * way the ingest API routes it (analyzer by file name, rules selected per unit, CEL checks only).
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { createAnalyzerRegistry } from '../../engine/src/analyzers/registry';
import { runChecks } from '../../engine/src/checks/run-checks';
import { loadBuiltinRuleset } from '../../engine/src/rules/ruleset';
import { selectRules } from '../../engine/src/rules/select';

export const REPO = resolve(import.meta.dirname, '../..');
export const KUBERNETES = join(REPO, 'deploy/kubernetes');

/** One Kubernetes object as parsed from YAML. */
export type K8sObject = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; [k: string]: unknown }; [k: string]: any };

interface Kustomization {
  resources?: string[];
  namespace?: string;
  images?: { name: string; newName?: string; newTag?: string }[];
  patches?: { target: { kind: string; name: string }; patch: string }[];
  labels?: { pairs: Record<string, string> }[];
}

function readKustomization(dir: string): Kustomization {
  return parseYaml(readFileSync(join(dir, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/** The objects of one YAML file (comments and empty documents dropped). */
export function readObjects(file: string): K8sObject[] {
  return parseAllDocuments(readFileSync(file, 'utf8'))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
}

/** JSON Pointer segments (RFC 6901). */
function pointer(path: string): string[] {
  return path
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Applies JSON Patch `replace` and `add` operations (RFC 6902); any other operation throws. */
function applyJsonPatch(target: any, ops: { op: string; path: string; value: unknown }[]): void {
  for (const { op, path, value } of ops) {
    if (op !== 'replace' && op !== 'add') throw new Error(`unsupported patch op ${op}`);
    const keys = pointer(path);
    const last = keys.pop() as string;
    const parent = keys.reduce((node, key) => {
      if (node?.[key] === undefined) throw new Error(`patch path ${path} does not exist`);
      return node[key];
    }, target);
    if (op === 'replace' && parent[last] === undefined) throw new Error(`patch path ${path} does not exist`);
    if (Array.isArray(parent) && last === '-') parent.push(value);
    else parent[last] = structuredClone(value);
  }
}

/**
 * The objects `dir`'s kustomization.yaml produces: its resources (files or other
 * kustomizations), then labels, namespace, images and JSON 6902 patches, which is every
 * kustomize feature the manifests use (anything else in a kustomization is refused here).
 */
export function renderKustomization(dir: string): K8sObject[] {
  const k = readKustomization(dir);
  const known = new Set(['apiVersion', 'kind', 'resources', 'namespace', 'images', 'patches', 'labels']);
  for (const key of Object.keys(k)) if (!known.has(key)) throw new Error(`${dir}: kustomization field ${key} is not rendered by the tests`);
  const objects = (k.resources ?? []).flatMap((r) => (r.endsWith('.yaml') ? readObjects(join(dir, r)) : renderKustomization(resolve(dir, r))));
  for (const { pairs } of k.labels ?? []) for (const o of objects) o.metadata.labels = { ...(o.metadata.labels as object), ...pairs };
  if (k.namespace) for (const o of objects) o.metadata.namespace = k.namespace;
  for (const image of k.images ?? []) {
    for (const o of objects) {
      for (const c of o.spec?.template?.spec?.containers ?? []) {
        const [name, tag] = (c.image as string).split(':');
        if (name === image.name) c.image = `${image.newName ?? name}:${image.newTag ?? tag}`;
      }
    }
  }
  for (const { target, patch } of k.patches ?? []) {
    const matched = objects.filter((o) => o.kind === target.kind && o.metadata.name === target.name);
    if (matched.length === 0) throw new Error(`${dir}: patch target ${target.kind}/${target.name} not found`);
    for (const o of matched) applyJsonPatch(o, parseYaml(patch));
  }
  return objects;
}

/** Every folder under deploy/kubernetes holding a kustomization.yaml. */
export function kustomizationDirs(): string[] {
  return ['base', 'overlays/external-mongodb'].map((d) => join(KUBERNETES, d));
}

/** Every manifest file a kustomization lists (resource files only, not patches). */
export function manifestFiles(): string[] {
  const files = new Set<string>();
  const walk = (dir: string) => {
    for (const r of readKustomization(dir).resources ?? []) {
      if (r.endsWith('.yaml')) files.add(join(dir, r));
      else walk(resolve(dir, r));
    }
  };
  for (const dir of kustomizationDirs()) walk(dir);
  return [...files].sort();
}

const SEVERITY_RANK: Record<string, number> = { INFO: 0, LOW: 1, MEDIUM: 2, HIGH: 3, CRITICAL: 4 };
const registry = createAnalyzerRegistry();

/** A deterministic finding: rule, severity, unit. */
export interface CheckFinding {
  readonly ruleId: string;
  readonly severity: string;
  readonly unit: string;
}

/**
 * Planwarden's own deterministic checks over `text` read as `analyzerName` input (path `path`):
 * every unit the analyzer makes, the built-in rules selected for it (rules/select.ts, as the
 * server selects them), their CEL checks (checks/run-checks.ts). Returns the matches.
 */
export function planwardenChecks(analyzerName: 'kubernetes' | 'dockerfile', path: string, text: string): CheckFinding[] {
  const analyzer = registry.get(analyzerName);
  if (!analyzer?.ingest) throw new Error(`no analyzer ${analyzerName}`);
  const units = analyzer.ingest(text, { path });
  if (units.length === 0) throw new Error(`${path}: the ${analyzerName} analyzer made no unit`);
  return units.flatMap((unit) => {
    const variant = analyzer.ruleVariantFor?.(unit) ?? analyzer.defaultRuleVariant!;
    const selected = selectRules(loadBuiltinRuleset(analyzer.name, variant), unit);
    return runChecks(selected.rules, unit).map((m) => ({ ruleId: m.rule.rule_id, severity: m.rule.severity, unit: unit.name }));
  });
}

/** The findings ranked above LOW (MEDIUM, HIGH, CRITICAL). */
export function aboveLow(findings: readonly CheckFinding[]): CheckFinding[] {
  return findings.filter((f) => (SEVERITY_RANK[f.severity] ?? 99) > SEVERITY_RANK.LOW);
}

/** The folder of a manifest, relative to the repository (for messages). */
export const relative = (file: string) => file.slice(REPO.length + 1) || dirname(file);
