/**
 * Unit context shared by the analyzers whose units are configured by something outside their own
 * body (docs/decisions.md "Plan context"): a plan-JSON unit's companions
 * (terraform/plan-context.ts), a CloudFormation resource's template parameters, conditions and
 * mappings (cloudformation/template-context.ts). Stored as `metadata.context`, shown to the model
 * after the body (llm/prompt-context.ts), seen by checks as `companions` (checks/run-checks.ts),
 * and keyed into the analysis cache by `metadata.context_digest`.
 */
import { createHash } from 'node:crypto';

/** One context entry as stored in `metadata.context` and seen by checks as `companions` (plain JSON). */
export interface Companion {
  readonly address: string;
  readonly type: string;
  /** The companion's action: create, update, destroy or no-op. */
  readonly action: string;
  /** The companion's values, masked like the unit's own `metadata.values`. */
  readonly values: unknown;
}

/**
 * Hex SHA-256 over the canonical JSON of a companion list (object keys sorted, list order kept):
 * the same companions with the same values give the same digest in any input.
 */
export function contextDigest(context: readonly Companion[]): string {
  return createHash('sha256')
    .update(`planwarden-context/1\u0000${canonicalJson(context)}`, 'utf8')
    .digest('hex');
}

/**
 * `metadata` plus `context` (always) and `context_digest` (only when the context is not empty):
 * the two keys every analyzer sets the same way.
 */
export function withContext(metadata: Readonly<Record<string, unknown>>, context: readonly Companion[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...metadata, context };
  if (context.length > 0) out.context_digest = contextDigest(context);
  return out;
}

/**
 * JSON with plain objects' keys sorted at every depth (undefined members dropped, as
 * JSON.stringify does); an instance of a class is left to JSON.stringify.
 */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (isPlainObject(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
