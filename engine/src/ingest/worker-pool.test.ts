/**
 * Large bodies are split in the ingest worker pool. The units, routing facts and
 * errors a caller sees are the same as when the analyzer runs on the calling thread.
 */
import { describe, expect, it } from 'vitest';
import { corpusFile } from '../../../tests/corpus';
import { BUILT_IN_ANALYZERS } from '../analyzers/registry';
import { ValidationError } from '../core/errors';
import { autoRoute } from './auto-route';
import { decodeText } from '../core/decode';
import { runIngestJob, WORKER_MIN_CHARS } from './worker-pool';

const terraform = BUILT_IN_ANALYZERS.find((a) => a.name === 'terraform')!;
const CORPUS_PLAN = decodeText(corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json'));

/** The corpus plan with its resource changes repeated under new addresses: ~300 units. */
function largePlan(): string {
  const plan = JSON.parse(CORPUS_PLAN) as { resource_changes: Record<string, unknown>[] };
  const changes = plan.resource_changes;
  plan.resource_changes = Array.from({ length: 12 }, (_, copy) =>
    changes.map((rc) => ({ ...rc, address: `${String(rc.address)}_${copy}`, name: `${String(rc.name)}_${copy}` })),
  ).flat();
  return JSON.stringify(plan);
}
const PLAN = largePlan();
const DIFF = decodeText(corpusFile('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'));
const NAMES = BUILT_IN_ANALYZERS.map((a) => a.name);

describe('ingest worker pool', () => {
  it('splits a large plan into the same units, tagged with the analyzer, as the analyzer does inline', async () => {
    expect(PLAN.length).toBeGreaterThan(WORKER_MIN_CHARS);
    const inline = terraform.ingest!(PLAN).map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: 'terraform' } }));
    const { units } = await runIngestJob({ op: 'analyzer', analyzer: 'terraform', raw: PLAN });
    expect(units.length).toBeGreaterThan(250); // arrives in several chunks
    expect(units).toEqual(inline);
  });

  it('auto-routes a diff as autoRoute does, honouring the org switches', async () => {
    const enabled = NAMES.filter((n) => n !== 'kubernetes');
    const inline = autoRoute(DIFF, BUILT_IN_ANALYZERS, (n) => enabled.includes(n));
    const result = await runIngestJob({ op: 'auto', raw: DIFF, analyzers: NAMES, enabled });
    expect({ units: result.units, ...result.routed }).toEqual(inline);
  });

  it('raises the analyzer error on the calling thread with its class and status (422, not 500)', async () => {
    const broken = PLAN.slice(0, PLAN.length - 10); // truncated JSON
    const inline = (() => {
      try {
        terraform.ingest!(broken);
        return null;
      } catch (e) {
        return e as Error;
      }
    })();
    expect(inline).toBeInstanceOf(ValidationError);
    const error = await runIngestJob({ op: 'analyzer', analyzer: 'terraform', raw: broken }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toMatchObject({ status: 422, message: inline!.message });
  });

  it('runs more jobs than threads: every one completes, in any order', async () => {
    const jobs = Array.from({ length: 5 }, () => runIngestJob({ op: 'analyzer', analyzer: 'terraform', raw: PLAN }));
    const results = await Promise.all(jobs);
    expect(new Set(results.map((r) => r.units.length)).size).toBe(1);
  });
});
