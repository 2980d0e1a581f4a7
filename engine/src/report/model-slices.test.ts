/**
 * The report model built in slices of the event loop (buildReportModelInSlices, sliced-steps.ts):
 * the same model as in one go, findings in the same order as the built-in stable sort, and other
 * work runs while a large namespace's model is built.
 */
import { describe, expect, it } from 'vitest';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { buildReportModel, buildReportModelInSlices, type ReportInput } from './model';
import { runSteps, stableSortSteps } from './sliced-steps';

/** `n` resources over two analyzers, findings of every severity, many ties on severity, address and rule id. */
function largeInput(n: number): ReportInput {
  const severities = ['LOW', 'CRITICAL', 'MEDIUM', 'HIGH', 'INFO'] as const;
  const resources = Array.from({ length: n }, (_, i) =>
    buildResource({
      hash: `h-${i}`,
      name: `bucket_${i % 97}`,
      analyzer: i % 3 === 0 ? 'kubernetes' : 'terraform',
      summary: i % 11 === 0 ? null : 'ok',
      findings:
        i % 11 === 0
          ? []
          : [
              buildFinding({ rule_id: `R-${i % 7}`, severity: severities[i % 5], resource_address: `aws_s3_bucket.bucket_${i % 97}` }),
              buildFinding({ rule_id: 'R-1', severity: 'HIGH', status: i % 4 === 0 ? 'suppressed' : 'open', resource_address: '' }),
            ],
    }),
  );
  return { namespace: 'big', generatedAt: '2026-01-01T00:00:00.000Z', includeSuppressed: false, resources };
}

describe('buildReportModelInSlices', () => {
  it('builds the same model as buildReportModel, for both include_suppressed settings', async () => {
    for (const includeSuppressed of [false, true]) {
      const input = { ...largeInput(6000), includeSuppressed };
      const sliced = await buildReportModelInSlices(input, 0);
      expect(JSON.stringify(sliced)).toBe(JSON.stringify(buildReportModel(input)));
      expect(sliced.findings.length).toBeGreaterThan(4096);
    }
  });

  it('lets other work run while a large model is built', async () => {
    let turns = 0;
    let stop = false;
    const tick = () => {
      turns += 1;
      if (!stop) setImmediate(tick);
    };
    setImmediate(tick);
    await buildReportModelInSlices(largeInput(3000), 0);
    stop = true;
    expect(turns).toBeGreaterThan(10);
  });
});

describe('stableSortSteps', () => {
  it('sorts as Array.prototype.sort does, equal items keeping their input order', () => {
    const items = Array.from({ length: 10_000 }, (_, i) => ({ key: (i * 7919) % 13, at: i }));
    const byKey = (a: { key: number }, b: { key: number }) => a.key - b.key;
    const expected = [...items].sort(byKey);
    for (const run of [1, 3, 2048, 20_000]) {
      expect(runSteps(stableSortSteps([...items], byKey, run))).toEqual(expected);
    }
  });
});
