import { z } from 'zod';
import { SEVERITY_ORDER, type Severity } from '@planwarden/engine/core/finding-model';
import { FINDING_STATUSES } from '@planwarden/engine/findings/finding-store';

/**
 * The parts of the server's answers the `planwarden` command reads, as zod schemas: what the
 * gate decides on must be what the server meant, so an answer that does not match fails the
 * command (exit 2) instead of reading as "no findings" (fail closed, docs/decisions.md H5).
 * Objects are loose: fields the command does not read pass through untouched (the SARIF log is
 * written out as received).
 */

const count = z.number().int().nonnegative().nullish();

/** POST …/analyze: 200 `{job_id, report_markdown, …}` or 202 `{job_id, status}` (analysis-api.md "Server-side analysis"). */
export const AnalyzeAnswerSchema = z.looseObject({ job_id: z.string().min(1) });

/** GET /jobs/{job_id}: the fields the command reads (analysis-api.md "Job"). */
export const JobSchema = z.looseObject({
  job_id: z.string().min(1),
  status: z.enum(['queued', 'running', 'done', 'failed', 'cancelled']),
  resource_count: count,
  processed_count: count,
  total_count: count,
  current_resource: z.looseObject({ resource_address: z.string().nullish() }).nullish(),
  quota_exceeded: z.boolean().nullish(),
  error: z.string().nullish(),
});
export type JobView = z.infer<typeof JobSchema>;

const SarifResultSchema = z.looseObject({
  ruleId: z.string().min(1),
  message: z.looseObject({ text: z.string() }),
  // The gate reads severity and status: an unknown value must not count as "not blocking".
  properties: z.looseObject({
    severity: z.enum(SEVERITY_ORDER as [Severity, ...Severity[]]),
    status: z.enum(FINDING_STATUSES as [string, ...string[]]),
    resource_address: z.string().nullish(),
    resource_hash: z.string().nullish(),
  }),
  suppressions: z.array(z.looseObject({})).optional(),
  locations: z
    .array(
      z.looseObject({
        physicalLocation: z
          .looseObject({
            artifactLocation: z.looseObject({ uri: z.string().optional() }).optional(),
            region: z.looseObject({ startLine: z.number().int().positive().optional() }).optional(),
          })
          .optional(),
        logicalLocations: z.array(z.looseObject({ fullyQualifiedName: z.string().optional() })).optional(),
      }),
    )
    .optional(),
});

/**
 * GET /{namespace}/report?format=sarif&raw=true: one SARIF 2.1.0 run whose results carry the
 * Planwarden properties (engine/src/report/sarif.ts). `results` is required: a run without it
 * would read as "nothing found".
 */
export const SarifLogSchema = z.looseObject({
  version: z.literal('2.1.0'),
  runs: z
    .array(
      z.looseObject({
        results: z.array(SarifResultSchema),
        properties: z.looseObject({ quota_exceeded: z.boolean().optional() }).optional(),
      }),
    )
    .length(1),
});

/** `a.b[0].c: message; …` for the first few issues of a failed parse, on one line. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((issue) => {
    const path = issue.path.reduce<string>((s, p) => (typeof p === 'number' ? `${s}[${p}]` : s ? `${s}.${String(p)}` : String(p)), '');
    return `${path || '(top level)'}: ${issue.message}`;
  });
  const more = error.issues.length - shown.length;
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}
