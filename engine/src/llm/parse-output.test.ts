import { describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../core/unit';
import { extractJson, OutputParseError, parseAnalysisOutput } from './parse-output';

const UNIT: AnalysisUnit = {
  hash: 'd'.repeat(64),
  type: 'aws_db_instance',
  name: 'aws_db_instance.main',
  action: 'create',
  body: 'resource "aws_db_instance" "main" {\n  publicly_accessible = true\n  storage_encrypted   = false\n}',
  metadata: {},
};

function finding(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Public database',
    severity: 'HIGH',
    rule_id: 'RDS-001',
    risk: 'Reachable from the internet.',
    why_it_matters: 'Data exposure.',
    suggested_next_step: 'Set publicly_accessible = false.',
    confidence: 'HIGH',
    evidence: ['publicly_accessible = true'],
    resource_address: 'aws_db_instance.main',
    tags: ['network'],
    ...overrides,
  };
}
const reply = (findings: unknown[], summary = 'A public RDS instance.') => JSON.stringify({ summary, findings });

describe('extractJson', () => {
  it('reads plain JSON, fenced JSON and JSON after prose', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('```json\n{"a":2}\n```')).toEqual({ a: 2 });
    expect(extractJson('Here is the analysis:\n```\n{"a":3}\n```\nThanks.')).toEqual({ a: 3 });
    expect(extractJson('Sure. {"a": "has } brace and \\" quote"} trailing')).toEqual({ a: 'has } brace and " quote' });
    expect(extractJson('prose {not json} then {"a":4}')).toEqual({ a: 4 });
  });

  it('throws OutputParseError on no or truncated JSON', () => {
    expect(() => extractJson('')).toThrow(OutputParseError);
    expect(() => extractJson('no json')).toThrow(/no JSON object/);
    expect(() => extractJson('{"summary": "cut')).toThrow(/malformed or truncated/);
    expect(() => extractJson('[1,2]')).toThrow(OutputParseError);
  });
});

describe('parseAnalysisOutput', () => {
  it('returns a valid payload unchanged', () => {
    const { payload, droppedEvidence } = parseAnalysisOutput(reply([finding()]), UNIT);
    expect(droppedEvidence).toBe(0);
    expect(payload).toEqual({ summary: 'A public RDS instance.', findings: [finding()] });
  });

  it('normalises case, missing tags, missing resource_address and missing evidence', () => {
    const raw = finding({ severity: ' critical ', confidence: 'medium', tags: undefined, resource_address: undefined, evidence: null });
    const { payload } = parseAnalysisOutput(reply([raw]), UNIT);
    expect(payload.findings[0]).toMatchObject({ severity: 'CRITICAL', confidence: 'MEDIUM', tags: [], resource_address: 'aws_db_instance.main', evidence: [] });
  });

  it('drops evidence not in the body and lowers confidence one step per finding', () => {
    const text = reply([
      finding({ evidence: ['  publicly_accessible = true  ', 'publicly_accessible = "yes"', 'made up'] }),
      finding({ rule_id: 'RDS-002', confidence: 'MEDIUM', evidence: ['storage_encrypted = false'] }),
      finding({ rule_id: 'RDS-003', confidence: 'LOW', evidence: ['nope'] }),
      finding({ rule_id: 'RDS-004', evidence: ['storage_encrypted   = false'] }),
    ]);
    const { payload, droppedEvidence } = parseAnalysisOutput(text, UNIT);
    expect(droppedEvidence).toBe(4);
    expect(payload.findings.map((f) => [f.rule_id, f.confidence, f.evidence])).toEqual([
      ['RDS-001', 'MEDIUM', ['publicly_accessible = true']],
      ['RDS-002', 'LOW', []],
      ['RDS-003', 'LOW', []],
      ['RDS-004', 'HIGH', ['storage_encrypted   = false']],
    ]);
  });

  it('splits multi-line evidence into lines and de-duplicates', () => {
    const text = reply([finding({ evidence: ['publicly_accessible = true\n  storage_encrypted   = false', 'publicly_accessible = true'] })]);
    const { payload, droppedEvidence } = parseAnalysisOutput(text, UNIT);
    expect(droppedEvidence).toBe(0);
    expect(payload.findings[0].evidence).toEqual(['publicly_accessible = true', 'storage_encrypted   = false']);
    expect(payload.findings[0].confidence).toBe('HIGH');
  });

  it('keeps a lone NO-FINDINGS finding and removes it next to real findings', () => {
    const none = finding({ rule_id: 'NO-FINDINGS', severity: 'INFO', evidence: [], title: 'No findings' });
    expect(parseAnalysisOutput(reply([none]), UNIT).payload.findings.map((f) => f.rule_id)).toEqual(['NO-FINDINGS']);
    expect(parseAnalysisOutput(reply([none, finding()]), UNIT).payload.findings.map((f) => f.rule_id)).toEqual(['RDS-001']);
  });

  it('throws OutputParseError naming the schema problem', () => {
    expect(() => parseAnalysisOutput(reply([]), UNIT)).toThrow(/findings: findings must hold at least one finding/);
    expect(() => parseAnalysisOutput(reply([finding()], '  '), UNIT)).toThrow(/summary must not be empty/);
    expect(() => parseAnalysisOutput(reply([finding({ severity: 'SEVERE' })]), UNIT)).toThrow(/findings\.0\.severity/);
    expect(() => parseAnalysisOutput(reply([finding({ title: undefined })]), UNIT)).toThrow(OutputParseError);
    expect(() => parseAnalysisOutput('{"findings": "x"}', UNIT)).toThrow(OutputParseError);
  });
});

describe('rule ids outside the ruleset sent', () => {
  it('refuses a finding whose rule_id was not sent, naming it; NO-FINDINGS is always allowed', () => {
    const allowed = new Set(['RDS-001']);
    expect(() => parseAnalysisOutput(reply([finding({ rule_id: 'RDS-999' })]), UNIT, allowed)).toThrow(/outside the ruleset sent: RDS-999/);
    expect(parseAnalysisOutput(reply([finding()]), UNIT, allowed).payload.findings[0].rule_id).toBe('RDS-001');
    const clean = finding({ rule_id: 'NO-FINDINGS', severity: 'INFO', evidence: [] });
    expect(parseAnalysisOutput(reply([clean]), UNIT, allowed).payload.findings[0].rule_id).toBe('NO-FINDINGS');
  });
});
