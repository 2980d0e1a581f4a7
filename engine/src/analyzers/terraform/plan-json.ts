/**
 * `terraform show -json <planfile>` output → one unit per `resource_changes` entry
 * (analysis-api.md "Analysis unit"; JSON format: Terraform "JSON Output Format", plan
 * representation). Exactly one unit per entry, including no-op and data-source reads; a deposed
 * object is its own unit (name and body carry the deposed key).
 *
 * Action mapping: create → create; update → update; delete → destroy; read/no-op/forget → no-op;
 * delete+create in either order (and create+forget) → update with metadata.replace = true.
 * Sensitive values, and plain-text secrets the plan does not mark (plan-secrets.ts), are masked
 * before rendering (plan-values.ts); metadata carries no values (`plaintext_secrets` lists the
 * masked attributes and their body lines, never the secret; `values` is the masked `after`
 * as plain JSON for deterministic checks; `context` lists the unit's companions, plan-context.ts).
 *
 * The JSON object is found even when wrapped in CI log noise (hashicorp/setup-terraform's
 * wrapper prints `[command]...` before and `::debug::`/`::set-output` lines after it).
 */
import { ValidationError } from '../../core/errors';
import { hashUnit } from '../../core/hash';
import { assertJsonDepth } from '../../core/json-depth';
import type { AnalysisUnit, UnitAction } from '../../core/unit';
import { withPlanContext } from './plan-context';
import { maskPlanSecrets, secretEvidence } from './plan-secrets';
import { isRecord, prepareChange } from './plan-values';
import { renderResourceChange } from './render-change';

const MAX_CANDIDATES = 64;

/** Cheap check: the text mentions the plan JSON's top-level keys. */
export function looksLikePlanJson(text: string): boolean {
  return /"format_version"\s*:/.test(text) && /"(resource_changes|planned_values)"\s*:/.test(text);
}

/**
 * Finds and parses the plan object in `text` (pure JSON, or JSON surrounded by log lines).
 * Throws ValidationError when no parseable plan object is found (truncated or malformed JSON,
 * state JSON instead of a plan, unrelated JSON).
 */
export function extractPlanJson(text: string): Record<string, unknown> {
  const direct = tryParse(text.trim());
  if (isPlan(direct)) return direct;
  let seenJson: unknown = direct;
  let from = 0;
  for (let n = 0; n < MAX_CANDIDATES; n += 1) {
    const start = nextObjectStart(text, from);
    if (start < 0) break;
    const end = matchingBrace(text, start);
    if (end < 0) {
      from = start + 1;
      continue;
    } // unbalanced (truncated, or a stray `{` in the noise)
    const slice = text.slice(start, end + 1);
    const parsed = tryParse(slice) ?? tryParse(unescapeWorkflowCommand(slice));
    if (isPlan(parsed)) return parsed;
    if (parsed !== undefined) seenJson ??= parsed;
    from = parsed === undefined ? start + 1 : end + 1;
  }
  if (isRecord(seenJson) && isRecord(seenJson.values) && !('planned_values' in seenJson)) {
    throw new ValidationError('The JSON is Terraform state, not a plan: run `terraform show -json <planfile>`');
  }
  if (looksLikePlanJson(text)) {
    throw new ValidationError('The input looks like Terraform plan JSON but could not be parsed (truncated or malformed JSON)');
  }
  throw new ValidationError('No Terraform plan JSON object found in the input');
}

/**
 * Units for every `resource_changes` entry of a parsed plan, in plan order.
 * Throws ValidationError when `resource_changes` is not an array of change objects, or nests
 * deeper than MAX_JSON_DEPTH (json-depth.ts).
 */
export function planJsonUnits(plan: Record<string, unknown>, analyzer: string): AnalysisUnit[] {
  const changes = plan.resource_changes ?? [];
  if (!Array.isArray(changes)) throw new ValidationError('Plan JSON: resource_changes must be an array');
  assertJsonDepth(changes); // the per-change walks below recurse: refuse what would overflow the stack
  const clean = new Set<string>(); // strings already scanned free of secrets, for the whole plan
  const units = changes.map((rc, i) => {
    try {
      return changeUnit(rc, i, analyzer, clean);
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      // A change whose masks do not fit its values (e.g. an after_unknown array longer than the
      // value) is malformed input, not a server fault: 422 naming the entry, never a 500.
      const address = isRecord(rc) && typeof rc.address === 'string' ? ` (${rc.address})` : '';
      throw new ValidationError(`Plan JSON: resource_changes[${i}]${address} is malformed: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
  return withPlanContext(plan, changes, units); // companions: metadata.context, outside the hash
}

const REPLACED = Object.freeze({ action: 'update', replace: true } as const);
const CREATED = Object.freeze({ action: 'create', replace: false } as const);
const DESTROYED = Object.freeze({ action: 'destroy', replace: false } as const);
const UPDATED = Object.freeze({ action: 'update', replace: false } as const);
const NO_OP = Object.freeze({ action: 'no-op', replace: false } as const);

/** Maps JSON-plan actions to the unit action and the replace flag. */
export function mapPlanActions(actions: readonly string[]): { action: UnitAction; replace: boolean } {
  const create = actions.includes('create');
  const del = actions.includes('delete');
  if (create && (del || actions.includes('forget'))) return REPLACED;
  if (create) return CREATED;
  if (del) return DESTROYED;
  if (actions.includes('update')) return UPDATED;
  return NO_OP; // no-op, read, forget
}

function changeUnit(rc: unknown, index: number, analyzer: string, clean: Set<string>): AnalysisUnit {
  if (!isRecord(rc) || typeof rc.address !== 'string' || !isRecord(rc.change) || !Array.isArray(rc.change.actions)) {
    throw new ValidationError(`Plan JSON: resource_changes[${index}] is not a resource change (address and change.actions required)`);
  }
  const change = rc.change;
  const actions = (change.actions as unknown[]).map(String);
  const { action, replace } = mapPlanActions(actions);
  const deposed = typeof rc.deposed === 'string' ? rc.deposed : null;
  const mode = typeof rc.mode === 'string' ? rc.mode : 'managed';
  const type = typeof rc.type === 'string' ? rc.type : 'unknown';
  const providerName = typeof rc.provider_name === 'string' ? rc.provider_name : null;
  const actionReason = typeof rc.action_reason === 'string' ? rc.action_reason : null;
  const moduleAddress = typeof rc.module_address === 'string' ? rc.module_address : null;
  const masked = maskPlanSecrets(change, clean); // plain-text secrets hidden before anything renders them
  const { before, after, values } = prepareChange(masked.change);
  const body = renderResourceChange({
    address: rc.address,
    deposed,
    mode,
    type,
    name: typeof rc.name === 'string' ? rc.name : rc.address,
    actions,
    actionReason,
    providerName,
    replacePaths: replacePaths(change.replace_paths),
    previousAddress: typeof rc.previous_address === 'string' ? rc.previous_address : null,
    importingId: isRecord(change.importing) && typeof change.importing.id === 'string' ? change.importing.id : null,
    before,
    after,
  });
  const name = deposed ? `${rc.address} (deposed object ${deposed})` : rc.address;
  const metadata: Record<string, unknown> = {
    source: 'plan-json',
    address: rc.address,
    module_address: moduleAddress,
    mode,
    provider_name: providerName,
    actions,
    action_reason: actionReason,
    deposed,
    replace,
  };
  if (masked.secrets.length > 0) metadata.plaintext_secrets = secretEvidence(body, masked.secrets);
  metadata.values = values; // planned values (plainValue(after)), masked like the body, for deterministic checks
  return { type, name, action, body, hash: hashUnit({ analyzer, type, name, action, body }), metadata };
}

/** `replace_paths` ([["a", 0, "b"], ...]) → ["a[0].b", ...]. */
function replacePaths(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(Array.isArray)
    .map((path: unknown[]) => path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? String(step) : `.${String(step)}`)).join(''));
}

function isPlan(value: unknown): value is Record<string, unknown> {
  if (!isRecord(value)) return false;
  if (Array.isArray(value.resource_changes)) return true;
  return typeof value.format_version === 'string' && isRecord(value.planned_values);
}

function tryParse(text: string): unknown {
  if (!text.startsWith('{')) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** GitHub Actions workflow-command escaping (%25, %0D, %0A), as in `::set-output` values. */
function unescapeWorkflowCommand(text: string): string {
  return text.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
}

/** Next `{` that can open a JSON object (followed by optional space, then `"` or `}`). */
function nextObjectStart(text: string, from: number): number {
  const re = /\{\s*["}]/g;
  re.lastIndex = from;
  const m = re.exec(text);
  return m ? m.index : -1;
}

/** Index of the `}` closing the object at `start`, skipping JSON strings; -1 when unbalanced. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') depth += 1;
    else if (c === '}') {
      depth -= 1;
      if (depth === 0) return i;
    }
  }
  return -1;
}
