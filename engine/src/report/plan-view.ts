import type { EngineContext } from '../context/engine-context';
import { SEVERITY_ORDER, type Severity } from '../core/payload';
import { parseAddress } from '../analyzers/terraform/address';
import type { FindingDoc, FindingStatus } from '../findings/finding-store';
import { lacksModelReview, type ResourceDoc } from '../ingest/resource-store';
import { loadNamespaceReportData } from './report-input';

/**
 * What a unit's change does, as Terraform's plan names it: a replace is its own action here
 * (stored as `update` with `metadata.replace`, docs/decisions.md), a data source read is `read`.
 */
export type PlanAction = 'create' | 'update' | 'replace' | 'destroy' | 'read' | 'no-op';

/** One finding of a plan-view unit: its rule, severity, title and triage status. */
export interface PlanViewFinding {
  readonly rule_id: string;
  readonly severity: Severity;
  readonly title: string;
  readonly status: FindingStatus;
}

/** One unit of the plan view (docs/decisions.md "Plan view"). */
export interface PlanViewUnit {
  readonly hash: string;
  readonly analyzer: string;
  readonly type: string;
  /** The unit's name: a Terraform address, a manifest's kind/name, a file's block. */
  readonly address: string;
  readonly action: PlanAction;
  /** Terraform's symbol for the action: `+`, `~`, `-/+` (`+/-` create before destroy), `-`, `<=`, or '' when unchanged. */
  readonly symbol: string;
  /** The tree path the unit sits under: module segments (`["module.a", "module.b[0]"]`, [] = root module), or `[file]`. */
  readonly group: readonly string[];
  /** Whether an analysis is stored for the unit. */
  readonly analysed: boolean;
  /** True when a model's review was asked for but is missing (its call failed): only the checks' findings are shown. */
  readonly lacks_model_review: boolean;
  readonly findings: readonly PlanViewFinding[];
}

const SYMBOLS: Readonly<Record<PlanAction, string>> = { create: '+', update: '~', replace: '-/+', destroy: '-', read: '<=', 'no-op': '' };

/** The plan action of a stored unit, from its action and the Terraform actions in its metadata. */
function planAction(doc: ResourceDoc): PlanAction {
  const actions = Array.isArray(doc.metadata.actions) ? doc.metadata.actions.map(String) : [];
  if (doc.metadata.replace === true) return 'replace';
  if (doc.value.action === 'no-op' && actions.includes('read')) return 'read';
  return doc.value.action as PlanAction;
}

/** `module.a["x"].module.b` → `["module.a[\"x\"]", "module.b"]`: one tree level per module call. */
function moduleSegments(moduleAddress: string): string[] {
  return moduleAddress.split(/\.(?=module\.)/);
}

/**
 * Where a unit sits in the tree: a Terraform plan's unit under its module path (the plan's
 * `module_address`, else parsed from the address); a file's unit (diffs, manifests, sources)
 * under its file path; anything else under its analyzer's name.
 */
function unitGroup(doc: ResourceDoc): string[] {
  const source = doc.metadata.source;
  if (doc.analyzer === 'terraform' && (source === 'plan-json' || source === 'plan-text' || source === undefined)) {
    const declared = typeof doc.metadata.module_address === 'string' ? doc.metadata.module_address : null;
    const module = declared ?? parseAddress(doc.value.name).moduleAddress;
    return module ? moduleSegments(module) : [];
  }
  if (typeof doc.metadata.path === 'string' && doc.metadata.path !== '') return [doc.metadata.path];
  return [doc.analyzer];
}

/**
 * GET /{namespace}/plan (docs/decisions.md "Plan view"): the namespace's units in ingest order
 * with their plan action and symbol, their tree path (module or file), whether each is
 * analysed, and their findings: the unit's triage records, as GET /findings lists them (so a
 * model's all-clear is none), most severe first. Bodies are not included: GET /resource/{hash} gives one. Returns
 * `{namespace, units}`. Throws ValidationError (422) for a malformed namespace and
 * NotFoundError (404) for a namespace the org does not have.
 */
export async function planView(ctx: EngineContext, orgId: string, namespace: string): Promise<{ namespace: string; units: PlanViewUnit[] }> {
  const data = await loadNamespaceReportData(ctx, orgId, namespace, { includeSuppressed: true, job: null });
  const records = new Map<string, FindingDoc[]>();
  for (const t of data.triage.values()) records.set(t.resource_hash, [...(records.get(t.resource_hash) ?? []), t]);
  const units = data.input.resources.flatMap((r): PlanViewUnit[] => {
    const doc = data.resources.get(r.hash);
    if (!doc) return [];
    const action = planAction(doc);
    const actions = Array.isArray(doc.metadata.actions) ? doc.metadata.actions : [];
    return [
      {
        hash: doc.hash,
        analyzer: doc.analyzer,
        type: doc.value.type,
        address: doc.value.name,
        action,
        symbol: action === 'replace' && actions[0] === 'create' ? '+/-' : SYMBOLS[action],
        group: unitGroup(doc),
        analysed: doc.analysis !== null,
        lacks_model_review: lacksModelReview(doc),
        findings: (records.get(doc.hash) ?? [])
          .map((f) => ({ rule_id: f.rule_id, severity: f.severity, title: f.title, status: f.status }))
          .sort((a, b) => SEVERITY_ORDER.indexOf(a.severity) - SEVERITY_ORDER.indexOf(b.severity) || a.rule_id.localeCompare(b.rule_id)),
      },
    ];
  });
  return { namespace, units };
}
