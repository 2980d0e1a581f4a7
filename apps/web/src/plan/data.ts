import { useQuery } from '@tanstack/react-query';
// Type-only (erased from the bundle), as api/types.ts derives every response shape from the engine's presenters.
import type { PlanAction, PlanViewUnit, planView } from '@planwarden/engine/report/plan-view';
import { api } from '../api/client';
import { SEVERITIES, type Severity } from '../api/types';

export type { PlanAction };
export type PlanUnit = PlanViewUnit;
export type PlanView = Awaited<ReturnType<typeof planView>>;

/** GET /{namespace}/plan (docs/decisions.md "Plan view"). */
export function usePlanView(namespace: string) {
  return useQuery({
    queryKey: ['plan', namespace],
    queryFn: ({ signal }) => api.get<PlanView>(`/${encodeURIComponent(namespace)}/plan`, signal),
    enabled: namespace !== '',
  });
}

/** The actions in the order Terraform's plan summary names them, with the words the view shows. */
export const ACTIONS: readonly { action: PlanAction; label: string; summary: string }[] = [
  { action: 'create', label: 'create', summary: 'to add' },
  { action: 'update', label: 'update in place', summary: 'to change' },
  { action: 'replace', label: 'replace', summary: 'to replace' },
  { action: 'destroy', label: 'destroy', summary: 'to destroy' },
  { action: 'read', label: 'read', summary: 'to read' },
  { action: 'no-op', label: 'unchanged', summary: 'unchanged' },
];

/** Triage statuses whose findings the badges leave out, as the report does by default. */
const HIDDEN = new Set(['suppressed', 'false_positive']);

/** The findings a unit's badges count: every triage record except suppressed and false positives. */
export function shownFindings(unit: PlanUnit) {
  return unit.findings.filter((f) => !HIDDEN.has(f.status));
}

/** Counts by severity, most severe first, only the severities present. */
export function severityCounts(findings: readonly { severity: Severity }[]): [Severity, number][] {
  return SEVERITIES.map((s): [Severity, number] => [s, findings.filter((f) => f.severity === s).length]).filter(([, n]) => n > 0);
}

/** The view's filters, held in the URL (`/plan/ns?action=create&severity=HIGH`). */
export interface PlanFilters {
  readonly action?: PlanAction;
  /** At least one shown finding at this severity or above. */
  readonly severity?: Severity;
}

export function planFiltersFrom(params: URLSearchParams): PlanFilters {
  const action = ACTIONS.find((a) => a.action === params.get('action'))?.action;
  const severity = SEVERITIES.find((s) => s === params.get('severity'));
  return { ...(action ? { action } : {}), ...(severity ? { severity } : {}) };
}

/** The units the filters keep. */
export function filterUnits(units: readonly PlanUnit[], f: PlanFilters): PlanUnit[] {
  const worst = f.severity ? SEVERITIES.indexOf(f.severity) : -1;
  return units.filter((u) => (!f.action || u.action === f.action) && (worst < 0 || shownFindings(u).some((x) => SEVERITIES.indexOf(x.severity) <= worst)));
}

/** A level of the tree: a module call (or file) with its own units and its child modules. */
export interface PlanNode {
  /** The path of segments joined by a space (unique); '' for the root module. */
  readonly key: string;
  readonly label: string;
  readonly depth: number;
  readonly units: PlanUnit[];
  readonly children: PlanNode[];
  /** Units in this node and below. */
  count: number;
}

/** Builds the tree from the units' `group` paths: the root module first, then child nodes by name; units by address. */
export function buildTree(units: readonly PlanUnit[]): PlanNode {
  const root: PlanNode = { key: '', label: 'root module', depth: 0, units: [], children: [], count: 0 };
  const nodes = new Map<string, PlanNode>([['', root]]);
  for (const unit of units) {
    let node = root;
    node.count += 1;
    unit.group.forEach((segment, i) => {
      const key = unit.group.slice(0, i + 1).join(' ');
      let child = nodes.get(key);
      if (!child) {
        child = { key, label: segment, depth: i + 1, units: [], children: [], count: 0 };
        nodes.set(key, child);
        node.children.push(child);
      }
      child.count += 1;
      node = child;
    });
    node.units.push(unit);
  }
  for (const node of nodes.values()) {
    node.units.sort((a, b) => a.address.localeCompare(b.address));
    node.children.sort((a, b) => a.label.localeCompare(b.label));
  }
  return root;
}

/** The units in the order the tree shows them (keyboard order), skipping collapsed nodes' contents. */
export function visibleOrder(node: PlanNode, collapsed: ReadonlySet<string>): PlanUnit[] {
  if (node.key !== '' && collapsed.has(node.key)) return [];
  return [...node.units, ...node.children.flatMap((c) => visibleOrder(c, collapsed))];
}

/**
 * The address shown under its tree node: the module path the node already names is dropped
 * (`module.poc.aws_iam_role.r1["p1"]` under `module.poc` → `aws_iam_role.r1["p1"]`).
 */
export function shortAddress(unit: PlanUnit): string {
  const prefix = unit.group.join('.');
  return prefix && unit.address.startsWith(`${prefix}.`) ? unit.address.slice(prefix.length + 1) : unit.address;
}
