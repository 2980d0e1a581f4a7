/**
 * Turns a model's reply into the analysis payload (analysis-api.md "Analysis payload (body of
 * PUT)"): JSON extraction, light normalisation, zod validation, evidence verification.
 */
import type { ZodError } from 'zod';
import { AnalysisPayloadSchema, type AnalysisPayload, type Confidence } from '../core/payload';
import type { AnalysisUnit } from '../core/unit';
import { NO_FINDINGS_RULE_ID } from '../core/payload';

/** The model's reply is not a valid analysis payload. Retryable within llm_max_attempts. */
export class OutputParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutputParseError';
  }
}

export interface ParsedOutput {
  readonly payload: AnalysisPayload;
  /** Evidence lines removed because they are not lines of the unit body. */
  readonly droppedEvidence: number;
}

const LOWER_CONFIDENCE: Record<Confidence, Confidence> = { HIGH: 'MEDIUM', MEDIUM: 'LOW', LOW: 'LOW' };

/**
 * Parses a model reply for `unit`.
 *
 * 1. Extracts the JSON object: the whole text, else a ```json fenced block, else the first
 *    balanced `{...}` that parses (tolerates leading/trailing prose).
 * 2. Normalises: severity and confidence trimmed and upper-cased; missing/null `tags` → [];
 *    missing/null/empty `resource_address` → unit.name; missing/null `evidence` → [];
 *    a `NO-FINDINGS` finding next to real findings is removed.
 * 3. Validates with AnalysisPayloadSchema (zod).
 * 4. With `allowedRuleIds`, refuses a finding whose rule_id is not one of them (NO-FINDINGS
 *    aside): the model invented a rule (OutputParseError, so the attempt is retried).
 * 5. Verifies evidence: each entry (multi-line entries split into lines) must equal, after
 *    trimming, a line of unit.body. Other lines are dropped (and counted), and a finding that
 *    lost any evidence has its confidence lowered one step (HIGH → MEDIUM → LOW). Kept
 *    evidence is stored trimmed and de-duplicated.
 *
 * @throws OutputParseError when no JSON object is found or it fails the schema; the message
 *         names the first problems (path: issue).
 */
export function parseAnalysisOutput(text: string, unit: AnalysisUnit, allowedRuleIds?: ReadonlySet<string>): ParsedOutput {
  const raw = extractJson(text);
  const normalised = normalise(raw, unit);
  const result = AnalysisPayloadSchema.safeParse(normalised);
  if (!result.success) {
    throw new OutputParseError(`LLM output does not match the analysis payload: ${describeIssues(result.error)}`);
  }
  if (allowedRuleIds) {
    const unknown = unknownRuleIds(result.data, allowedRuleIds);
    if (unknown.length > 0) throw new OutputParseError(`LLM output names rule ids outside the ruleset sent: ${unknown.join(', ')}`);
  }
  return verifyEvidence(result.data, unit.body);
}

/**
 * The distinct rule ids of `payload`'s findings that are neither in `allowed` nor NO-FINDINGS,
 * in finding order (an invented rule id is refused on every path; docs/decisions.md "Rule ids").
 */
export function unknownRuleIds(payload: AnalysisPayload, allowed: ReadonlySet<string>): string[] {
  const ids = payload.findings.map((f) => f.rule_id).filter((id) => id !== NO_FINDINGS_RULE_ID && !allowed.has(id));
  return [...new Set(ids)];
}

/**
 * Finds the JSON object in a reply.
 * @throws OutputParseError when there is none.
 */
export function extractJson(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') throw new OutputParseError('LLM output is empty');
  const direct = tryParse(trimmed);
  if (isObject(direct)) return direct;

  const fence = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n?```/.exec(trimmed);
  if (fence) {
    const fenced = tryParse(fence[1].trim());
    if (isObject(fenced)) return fenced;
  }

  for (let start = trimmed.indexOf('{'); start >= 0; start = trimmed.indexOf('{', start + 1)) {
    const end = matchingBrace(trimmed, start);
    if (end < 0) continue;
    const candidate = tryParse(trimmed.slice(start, end + 1));
    if (isObject(candidate)) return candidate;
  }
  throw new OutputParseError(
    trimmed.includes('{') ? 'LLM output holds no complete JSON object (malformed or truncated JSON)' : 'LLM output holds no JSON object',
  );
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Index of the `}` closing the `{` at `start`, skipping braces inside strings; -1 if unbalanced. */
function matchingBrace(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

function normalise(raw: unknown, unit: AnalysisUnit): unknown {
  if (!isObject(raw) || !Array.isArray(raw.findings)) return raw;
  let findings = raw.findings.map((finding: unknown) => {
    if (!isObject(finding)) return finding;
    const out: Record<string, unknown> = { ...finding };
    if (typeof out.severity === 'string') out.severity = out.severity.trim().toUpperCase();
    if (typeof out.confidence === 'string') out.confidence = out.confidence.trim().toUpperCase();
    if (out.tags == null) out.tags = [];
    if (out.evidence == null) out.evidence = [];
    if (out.resource_address == null || (typeof out.resource_address === 'string' && out.resource_address.trim() === '')) {
      out.resource_address = unit.name;
    }
    return out;
  });
  const real = findings.filter((f) => !(isObject(f) && f.rule_id === NO_FINDINGS_RULE_ID));
  if (real.length > 0) findings = real;
  return { ...raw, findings };
}

/**
 * Keeps only evidence that is a line of `body` (each entry split into lines, compared trimmed),
 * de-duplicated; a finding that lost any evidence has its confidence lowered one step. Shared by
 * the model path and the client-led PUT (analysis-api.md "Analysis payload").
 */
export function verifyEvidence(payload: AnalysisPayload, body: string): ParsedOutput {
  const bodyLines = new Set(
    body
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== ''),
  );
  let droppedEvidence = 0;
  const findings = payload.findings.map((finding) => {
    const kept: string[] = [];
    let dropped = 0;
    for (const entry of finding.evidence) {
      for (const line of entry.split(/\r?\n/)) {
        const t = line.trim();
        if (t === '') continue;
        if (bodyLines.has(t)) {
          if (!kept.includes(t)) kept.push(t);
        } else dropped++;
      }
    }
    droppedEvidence += dropped;
    return {
      ...finding,
      evidence: kept,
      confidence: dropped > 0 ? LOWER_CONFIDENCE[finding.confidence] : finding.confidence,
    };
  });
  return { payload: { ...payload, findings }, droppedEvidence };
}

function describeIssues(error: ZodError): string {
  const issues = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return `${path}: ${issue.message}`;
  });
  const more = error.issues.length > 5 ? ` (+${error.issues.length - 5} more)` : '';
  return issues.join('; ') + more;
}
