/**
 * Test helpers shared by the analyzers' corpus tests (not used by product code): the checks every
 * whole-file analyzer must pass on a corpus file.
 */
import { expect } from 'vitest';
import { corpusFile } from '../corpus';
import type { AnalysisUnit, Analyzer } from '../../engine/src/core/unit';

/**
 * Ingests corpus file `rel` with `analyzer` and checks: `expected` units; hashes are 64-hex,
 * unique and identical on a second ingest (and on CRLF input); every body starts with the
 * `# file:` line and every other non-comment body line is a line of the source (a line whose
 * secret was masked: the source line with the secret in place of each marker), so evidence
 * quoted from a body can be found in the file. Returns the units.
 */
export function expectCorpusUnits(analyzer: Analyzer, rel: string, expected: number): AnalysisUnit[] {
  const text = corpusFile(rel).toString('utf8');
  const units = analyzer.ingest!(text, { path: rel });
  expect(units).toHaveLength(expected);
  const hashes = units.map((u) => u.hash);
  for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
  expect(new Set(hashes).size).toBe(units.length);
  expect(analyzer.ingest!(text, { path: rel }).map((u) => u.hash)).toEqual(hashes);
  const lf = text.replace(/\r\n?/g, '\n');
  expect(analyzer.ingest!(lf.replace(/\n/g, '\r\n'), { path: rel }).map((u) => u.hash)).toEqual(analyzer.ingest!(lf, { path: rel }).map((u) => u.hash));
  const sourceLines = new Set(lf.split('\n'));
  for (const unit of units) {
    const lines = unit.body.split('\n');
    expect(lines[0]).toBe(`# file: ${rel}`);
    const content = lines.filter((l) => !l.startsWith('# ') && l !== 'jobs:' && l.trim() !== '');
    expect(content.length, unit.name).toBeGreaterThan(0);
    for (const line of content) expect(sourceLines.has(line) || maskedSourceLine(line, sourceLines), `${unit.name}: ${line}`).toBe(true);
    expect(unit.action).toBe('create');
    expect(unit.metadata.path).toBe(rel);
  }
  return units;
}

/** True when `line` holds the masking marker and is a source line with something in place of each marker. */
function maskedSourceLine(line: string, sourceLines: ReadonlySet<string>): boolean {
  const marker = '(sensitive value)';
  if (!line.includes(marker)) return false;
  const pattern = new RegExp(
    `^${line
      .split(marker)
      .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.+')}$`,
  );
  for (const source of sourceLines) if (pattern.test(source)) return true;
  return false;
}
