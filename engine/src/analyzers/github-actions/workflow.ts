/**
 * A GitHub Actions workflow → one unit per job (analysis-api.md "Analysis unit").
 *
 * - Unit: type `github_actions_job`, name = `<path>#<job id>` (`<job id>` without a path),
 *   action `create`.
 * - Body: `# file:` line, then the workflow context every job runs under, verbatim: `name`,
 *   `on` (the triggers), top-level `permissions` and `env`; a comment line says when there is no
 *   top-level `permissions` (the repository's default token permissions then apply). Then
 *   `jobs:` and the job's source lines verbatim. The body is itself a valid one-job workflow.
 * - `metadata.values` (for deterministic checks; not hashed): `{on, permissions?, job}`, the
 *   workflow's triggers, its top-level permissions (absent when it sets none) and the job, as
 *   plain data.
 * - Secrets are masked in the body and the values before the unit exists (../common/mask-unit.ts):
 *   credential-named `env` literals at any level (`API_TOKEN: abc`; `${{ secrets.X }}` is a
 *   reference and stays), credential shapes and credential-named assignments inside `run:` scripts.
 */
import { isMap, isScalar, type Node, type Pair, type YAMLMap } from 'yaml';
import { ValidationError } from '../../core/errors';
import type { AnalysisUnit } from '../../core/unit';
import { maskUnitSecrets, secretsMetadata } from '../common/mask-unit';
import { fileHeader, makeUnit } from '../common/unit';
import { isEmptyDocument, pairSpan, parseYamlSource, sliceLines, type YamlSource } from '../common/yaml-source';

export const JOB_TYPE = 'github_actions_job';
const CONTEXT_KEYS = ['name', 'on', 'permissions', 'env'] as const;
export const NO_PERMISSIONS_NOTE = '# no top-level permissions: block (the repository default GITHUB_TOKEN permissions apply)';

interface Workflow {
  readonly root: YAMLMap;
  readonly jobs: YAMLMap;
  /** The document as plain data. */
  readonly value: Record<string, unknown>;
}

/** The workflow's root map, or a ValidationError saying why the text is not a workflow. */
function workflowRoot(source: YamlSource): Workflow {
  const docs = source.docs.filter((d) => !isEmptyDocument(d));
  if (docs.length !== 1) throw new ValidationError('The input is not a GitHub Actions workflow: expected one YAML document');
  const root = docs[0].contents;
  if (!isMap(root)) throw new ValidationError('The input is not a GitHub Actions workflow: the document is not a map');
  const jobs = root.get('jobs', true);
  if (!isMap(jobs) || jobs.items.length === 0) throw new ValidationError('The input is not a GitHub Actions workflow: no jobs map');
  if (!root.has('on')) throw new ValidationError('The input is not a GitHub Actions workflow: no on: triggers');
  return { root, jobs, value: docs[0].toJS({ maxAliasCount: 1000 }) as Record<string, unknown> };
}

function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : '';
}

/** Trigger names of `on:` (a string, a list or a map). */
function triggers(on: unknown): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.map(String);
  return on && typeof on === 'object' ? Object.keys(on) : [];
}

/** Units of one workflow. Throws ValidationError on bad YAML or a document that is not a workflow. */
export function workflowUnits(text: string, path: string | undefined, analyzer: string): AnalysisUnit[] {
  const source = parseYamlSource(text);
  const { root, jobs, value } = workflowRoot(source);
  const context: string[] = [];
  for (const key of CONTEXT_KEYS) {
    const pair = root.items.find((p) => keyOf(p) === key);
    if (pair) context.push(...sliceLines(source, pairSpan(source, pair.key as Node, pair.value as Node | null)));
  }
  const hasPermissions = root.has('permissions');
  if (!hasPermissions) context.push(NO_PERMISSIONS_NOTE);
  const on = triggers(value.on);
  const workflowName = value.name;
  const plainJobs = (value.jobs ?? {}) as Record<string, unknown>;
  return jobs.items.map((pair) => {
    const jobId = keyOf(pair);
    const span = pairSpan(source, pair.key as Node, pair.value as Node | null);
    const plain = plainJobs[jobId];
    const job = (plain && typeof plain === 'object' ? plain : {}) as Record<string, unknown>;
    const { body, values, secrets } = maskUnitSecrets(
      [...fileHeader(path), ...context, 'jobs:', ...sliceLines(source, span)].join('\n'),
      { on: value.on ?? null, ...(hasPermissions ? { permissions: value.permissions ?? null } : {}), job },
      { extra: [{ env: value.env ?? null }] }, // the top-level env is in the body, not in values
    );
    return makeUnit(
      analyzer,
      { type: JOB_TYPE, name: path ? `${path}#${jobId}` : jobId, action: 'create', body },
      {
        source: 'workflow',
        path: path ?? null,
        job_id: jobId,
        workflow_name: typeof workflowName === 'string' ? workflowName : null,
        triggers: on,
        top_level_permissions: hasPermissions,
        runs_on: job['runs-on'] ?? null,
        reusable_workflow: typeof job.uses === 'string' ? job.uses : null,
        start_line: span.start,
        end_line: span.end,
        values,
        ...secretsMetadata(secrets),
      },
    );
  });
}

/**
 * Sniff hook: a YAML map with `on:` and a non-empty `jobs:` map → 0.95 (above Terraform's plan-text
 * sniff, which a workflow that runs `terraform plan` can trip); else null.
 */
export function sniffWorkflow(content: string): { kind: string; confidence: number } | null {
  if (!/^["']?on["']?\s*:/m.test(content) || !/^["']?jobs["']?\s*:/m.test(content)) return null;
  try {
    workflowRoot(parseYamlSource(content));
    return { kind: 'github-actions-workflow', confidence: 0.95 };
  } catch {
    return null;
  }
}
