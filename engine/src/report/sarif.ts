import { createHash } from 'node:crypto';
import type * as Sarif from 'sarif';
import type { Severity } from '../core/payload';
import { forEachTimedBatch } from '../ingest/timed-batches';
import type { RuleDef } from '../rules/ruleset';
import type { ReportFinding, ReportFindingStatus, ReportModel } from './model';

/**
 * A namespace report as a SARIF 2.1.0 log (OASIS "Static Analysis Results Interchange Format
 * Version 2.1.0", errata01), shaped for GitHub code scanning: one run, the rules that produced
 * results as `tool.driver.rules`, one result per finding with a stable `partialFingerprints`
 * entry, and triage verdicts that hide a finding as `suppressions`.
 * analysis-api.md "Reports and report links" (format `sarif`), "Finding status".
 */

/** The normative schema location of SARIF 2.1.0 (errata01). */
export const SARIF_SCHEMA_URI = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';
export const SARIF_VERSION = '2.1.0';
/**
 * The `partialFingerprints` key: SHA-256 of (unit hash, rule id). A unit hash is stable while
 * the resource's content is, so GitHub keeps one alert per (resource, rule) across pushes.
 */
export const SARIF_FINGERPRINT_KEY = 'planwardenUnitRule/v1';

/** SARIF `level` per finding severity (SARIF §3.27.10). */
export const SARIF_LEVEL: Readonly<Record<Severity, Sarif.Result.level>> = {
  CRITICAL: 'error',
  HIGH: 'error',
  MEDIUM: 'warning',
  LOW: 'note',
  INFO: 'note',
};

/**
 * `security-severity` as GitHub code scanning reads it (a 0.0-10.0 score in a string: ≥ 9.0
 * critical, 7.0-8.9 high, 4.0-6.9 medium, 0.1-3.9 low, 0.0 none).
 */
export const SECURITY_SEVERITY: Readonly<Record<Severity, string>> = {
  CRITICAL: '9.5',
  HIGH: '8.0',
  MEDIUM: '5.5',
  LOW: '3.0',
  INFO: '0.0',
};

/** Triage statuses the reports hide by default; in SARIF they are results with a suppression. */
export const SUPPRESSED_STATUSES: ReadonlySet<ReportFindingStatus> = new Set(['suppressed', 'false_positive']);

/** Where a unit sits in its source: the file and first line (diff, HCL, blob units) and the resource address. In SARIF a unit with a file but no line points at line 1. */
export interface UnitLocation {
  /** Path as it appears in the input (a diff's `b/` side), `/`-separated; null for plan units. */
  readonly path: string | null;
  /** 1-based line of the unit's first line in that file; null when unknown. */
  readonly line: number | null;
  /** Resource address (`module.a.aws_s3_bucket.b`) or block name; null when the unit has none. */
  readonly address: string | null;
}

export interface SarifInput {
  /** Built with includeSuppressed true, so suppressed findings are present to be marked. */
  readonly model: ReportModel;
  /** Unit metadata by unit hash (the stored resource's `metadata`). */
  readonly units: ReadonlyMap<string, Readonly<Record<string, unknown>>>;
  /** Ruleset rules by rule id (help text for `tool.driver.rules`). */
  readonly rules: ReadonlyMap<string, RuleDef>;
  /** Triage notes by `${resource_hash}\u0000${rule_id}`; used as the suppression justification. */
  readonly notes: ReadonlyMap<string, string | null>;
  readonly tool: { readonly name: string; readonly version: string; readonly informationUri?: string };
}

/**
 * The file, line and address of a unit from its parser metadata: `path` with `new_start`
 * (diff blocks), `start_line` (HCL files, blobs) or nothing (fragments, plan units); `address`
 * from the metadata, else `fallbackAddress`. Lines below 1 are dropped. Pure.
 */
export function unitLocation(metadata: Readonly<Record<string, unknown>> | undefined, fallbackAddress: string | null): UnitLocation {
  const m = metadata ?? {};
  const path = typeof m.path === 'string' && m.path.trim() !== '' ? m.path.replace(/\\/g, '/').replace(/^\.\//, '') : null;
  const line = [m.new_start, m.start_line, m.old_start].find((v): v is number => Number.isInteger(v) && (v as number) >= 1) ?? null;
  const address = typeof m.address === 'string' && m.address !== '' ? m.address : fallbackAddress;
  return { path, line: path ? line : null, address };
}

/** The indentation of a serialised SARIF log (serializeSarif), for a writer that streams the same bytes. */
export const SARIF_INDENT = '  ';

/** A SARIF log as the bytes served and written: pretty-printed JSON (SARIF_INDENT) with a final newline. */
export function serializeSarif(log: Sarif.Log): string {
  return `${JSON.stringify(log, null, SARIF_INDENT)}\n`;
}

/** A relative path as a URI reference: each segment percent-encoded, `/` kept. */
export function pathToUri(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** The `Look for:` list of a rule's Markdown section, or null when the rule has none. */
export function lookForText(body: string): string | null {
  const lines = body.split('\n');
  const start = lines.findIndex((l) => /^\s*(?:\*\*|__)?look for:?(?:\*\*|__)?:?\s*$/i.test(l));
  if (start === -1) return null;
  const out: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') {
      if (out.length > 0) break;
      continue;
    }
    if (!/^\s*([-*+]|\d+[.)])\s/.test(line) && !/^\s{2,}/.test(line)) break;
    out.push(line.trimEnd());
  }
  return out.length > 0 ? out.join('\n') : null;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

function ruleDescriptor(ruleId: string, rule: RuleDef | undefined, sample: ReportFinding): Sarif.ReportingDescriptor {
  const title = rule?.title ?? sample.title;
  const severity = rule?.severity ?? sample.severity;
  const lookFor = rule ? lookForText(rule.body) : null;
  const helpText = [`${ruleId}: ${title}`, `Severity: ${severity}`, '', lookFor ? `Look for:\n${lookFor}` : (rule?.body ?? sample.why_it_matters)]
    .join('\n')
    .trim();
  return {
    id: ruleId,
    shortDescription: { text: title },
    fullDescription: { text: lookFor ?? title },
    help: { text: helpText, ...(rule ? { markdown: rule.body } : {}) },
    defaultConfiguration: { level: SARIF_LEVEL[severity] ?? 'warning' },
    properties: {
      tags: ['security', 'infrastructure-as-code'],
      'security-severity': SECURITY_SEVERITY[severity] ?? '5.5',
      severity,
      ...(rule && rule.applies_to.length > 0 ? { applies_to: rule.applies_to } : {}),
    },
  };
}

function resultLocation(finding: ReportFinding, where: UnitLocation): Sarif.Location {
  const address = where.address ?? finding.resource_address;
  const location: Sarif.Location = {
    logicalLocations: [{ name: finding.resource_name, fullyQualifiedName: address, kind: 'resource' }],
  };
  if (where.path) {
    // A unit without a line of its own covers changes across the file (a diff fragment, a
    // whole-file chunk): line 1 stands for the file, as code scanning needs a line to show it.
    location.physicalLocation = { artifactLocation: { uri: pathToUri(where.path) }, region: { startLine: where.line ?? 1 } };
  }
  return location;
}

function resultMessage(f: ReportFinding): string {
  const parts = [`${f.title} (${f.resource_address})`, f.risk.trim()];
  if (f.why_it_matters.trim()) parts.push(`Why it matters: ${f.why_it_matters.trim()}`);
  if (f.suggested_next_step.trim()) parts.push(`Next step: ${f.suggested_next_step.trim()}`);
  return parts.filter((p) => p !== '').join('\n\n');
}

/** `tool.driver.rules` of a log and each rule id's index in it: rules in rule id order. */
function sarifRules(input: SarifInput): { rules: Sarif.ReportingDescriptor[]; ruleIndex: Map<string, number> } {
  // Each rule described from its first finding, rules by id: one pass and a sort of the rule ids,
  // not of every finding (a stall of its own in a namespace of thousands of findings).
  const first = new Map<string, ReportFinding>();
  for (const f of input.model.findings) if (!first.has(f.rule_id)) first.set(f.rule_id, f);
  const ruleIndex = new Map<string, number>();
  const rules: Sarif.ReportingDescriptor[] = [];
  for (const ruleId of [...first.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    ruleIndex.set(ruleId, rules.length);
    rules.push(ruleDescriptor(ruleId, input.rules.get(ruleId), first.get(ruleId)!));
  }
  return { rules, ruleIndex };
}

function sarifResult(input: SarifInput, ruleIndex: ReadonlyMap<string, number>, f: ReportFinding): Sarif.Result {
  const where = unitLocation(input.units.get(f.resource_hash), f.resource_address);
  const result: Sarif.Result = {
    ruleId: f.rule_id,
    ruleIndex: ruleIndex.get(f.rule_id),
    level: SARIF_LEVEL[f.severity] ?? 'warning',
    message: { text: resultMessage(f) },
    locations: [resultLocation(f, where)],
    partialFingerprints: { [SARIF_FINGERPRINT_KEY]: sha256(`${f.resource_hash}\u0000${f.rule_id}`) },
    // SARIF 2.1.0 §3.27.22: where a person views this result (the finding's dashboard page).
    ...(f.dashboard_url ? { hostedViewerUri: f.dashboard_url } : {}),
    properties: {
      severity: f.severity,
      'security-severity': SECURITY_SEVERITY[f.severity] ?? '5.5',
      confidence: f.confidence,
      status: f.status,
      resource_address: f.resource_address,
      resource_hash: f.resource_hash,
      resource_type: f.resource_type,
      action: f.action,
      analyzer: f.analyzer,
      evidence: f.evidence,
      tags: f.tags,
    },
  };
  if (SUPPRESSED_STATUSES.has(f.status)) {
    const note = input.notes.get(`${f.resource_hash}\u0000${f.rule_id}`)?.trim();
    result.suppressions = [
      {
        kind: 'external',
        status: 'accepted',
        justification: `Triaged as ${f.status} in Planwarden${note ? `: ${note}` : ''}`,
      },
    ];
  }
  return result;
}

function sarifLog(input: SarifInput, rules: Sarif.ReportingDescriptor[], results: Sarif.Result[]): Sarif.Log {
  const { model } = input;
  return {
    $schema: SARIF_SCHEMA_URI,
    version: SARIF_VERSION,
    runs: [
      {
        tool: {
          driver: {
            name: input.tool.name,
            version: input.tool.version,
            semanticVersion: input.tool.version,
            ...(input.tool.informationUri ? { informationUri: input.tool.informationUri } : {}),
            rules,
          },
        },
        columnKind: 'utf16CodeUnits',
        results,
        properties: {
          namespace: model.namespace,
          generated_at: model.generated_at,
          quota_exceeded: model.quota_exceeded,
          job: model.job,
          resource_counts: model.resource_counts,
        },
      },
    ],
  };
}

/**
 * Builds the SARIF 2.1.0 log of a report model (see module comment). Results follow the
 * model's order (severity, address, rule id); `level` from SARIF_LEVEL; `properties` carry
 * severity, `security-severity`, confidence, triage status, address, unit hash, analyzer,
 * evidence and tags; findings with a SUPPRESSED_STATUSES status get one `external` / `accepted`
 * suppression whose justification names the status and the triage note. Rules come from
 * `input.rules` when known, else from the finding itself. Pure; throws nothing.
 */
export function buildSarifLog(input: SarifInput): Sarif.Log {
  const { rules, ruleIndex } = sarifRules(input);
  return sarifLog(
    input,
    rules,
    input.model.findings.map((f) => sarifResult(input, ruleIndex, f)),
  );
}

/**
 * buildSarifLog's log, equal to it, with the results built in slices of about 8 ms
 * (ingest/timed-batches.ts forEachTimedBatch) and a turn of the event loop between slices: a
 * namespace of thousands of findings (a SHA-256 and a message each) would otherwise hold the
 * server for that whole time. Throws nothing.
 */
export async function buildSarifLogInSlices(input: SarifInput): Promise<Sarif.Log> {
  const { rules, ruleIndex } = sarifRules(input);
  const results: Sarif.Result[] = [];
  await forEachTimedBatch(input.model.findings, async (batch) => {
    for (const f of batch) results.push(sarifResult(input, ruleIndex, f));
  });
  return sarifLog(input, rules, results);
}
