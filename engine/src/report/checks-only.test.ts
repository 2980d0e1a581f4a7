import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnalysis, type AnalysisDeps } from '../analysis/analyze-service';
import { resolveRuleset } from '../analysis/ruleset-service';
import { createAnalyzerRegistry } from '../analyzers/registry';
import type { EngineContext } from '../context/engine-context';
import { silentLogger } from '../core/logger';
import { SecretBox } from '../llm/secret-box';
import { DEFAULT_ORG_ID } from '../orgs/org-store';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { createStores, ensureSchema } from '../stores';
import { builtinRuleset, ChecksOnlyRun } from './checks-only';
import { renderNamespaceReport } from './namespace-report';
import { buildNamespaceSarif } from './sarif-service';

/**
 * The store-less checks-only run gives what the server's services give a fresh organization for
 * the same bodies: the same rulesets, the same report and the same SARIF log.
 */

const corpus = (path: string) => readFileSync(new URL(`../../../tests/corpus/${path}`, import.meta.url), 'utf8');
const BODIES = [
  corpus('tfplan-json/infracost-azure-firewall.json'),
  corpus('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'),
  corpus('k8s-yaml/k8s-examples-guestbook-all-in-one.yaml'),
];
const NAMESPACE = 'checks-only';
const CLOCK = () => new Date('2026-01-02T03:04:05.000Z');

let store: Store;
let ctx: EngineContext;

beforeAll(async () => {
  store = await openStore({ backend: 'memory' });
  await ensureSchema(store);
  ctx = {
    stores: createStores(store, new SecretBox('checks-only-test-secret-material-0')),
    analyzers: createAnalyzerRegistry(),
    now: CLOCK,
    log: silentLogger,
  };
  await ctx.stores.orgs.ensure({ org_id: DEFAULT_ORG_ID, name: 'Default organization', slug: 'default' }, CLOCK().toISOString());
});
afterAll(async () => {
  await store.close();
});

/** What the server's analyze endpoint needs for checks-only analyses. */
function deps(): AnalysisDeps {
  const never = () => {
    throw new Error('a checks-only analysis has no model and no queue');
  };
  return {
    ctx,
    settings: () => ({
      max_concurrent_units: 4,
      llm_timeout_seconds: 1,
      llm_max_attempts: 1,
      llm_retry_backoff_seconds: 0,
      llm_max_output_tokens: 1,
      max_input_size_mb: 10,
      sync_analysis_max_units: 0,
    }),
    providerFor: never,
    enqueue: never,
    renderReport: async () => '',
  };
}

describe('checks-only run without a store', () => {
  it('every built-in ruleset is the one a fresh org resolves (the digest an analysis records)', async () => {
    for (const analyzer of ctx.analyzers.list()) {
      for (const variant of analyzer.ruleVariants ?? []) {
        const expected = await resolveRuleset(ctx, DEFAULT_ORG_ID, analyzer, variant);
        expect(builtinRuleset(analyzer, variant), `${analyzer.name}/${variant}`).toEqual(expected);
      }
    }
  });

  it.each(BODIES)('gives the Markdown report and the SARIF log the server gives for the same body (%#)', async (body) => {
    const namespace = `${NAMESPACE}-${BODIES.indexOf(body)}`;
    const run = new ChecksOnlyRun(ctx.analyzers, namespace, 10 * 1024 * 1024, CLOCK);
    const job = run.analyse(null, body, null);
    const served = await startAnalysis(deps(), DEFAULT_ORG_ID, null, namespace, { raw_input: body });
    expect(job.resource_count).toBe(served.ingested.resource_count);
    const { renderReport } = await import('./render');
    const markdown = (await renderReport(run.reportModel(), { format: 'markdown' })).content;
    expect(markdown).toBe((await renderNamespaceReport(ctx, DEFAULT_ORG_ID, namespace, { format: 'markdown', includeSuppressed: false })).content);
    expect(markdown).toMatch(/^\| \d+ \| (HIGH|MEDIUM|LOW) \|/m);
    expect(run.sarif()).toEqual(await buildNamespaceSarif(ctx, DEFAULT_ORG_ID, namespace));
  });

  it('refuses as the endpoint does: unknown analyzer, a rule_type that is no variant, an empty body, too large a body', () => {
    const run = new ChecksOnlyRun(ctx.analyzers, NAMESPACE, 64, CLOCK);
    expect(() => run.analyse('nope', 'x', null)).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => run.analyse('terraform', 'x', 'nope')).toThrow(expect.objectContaining({ status: 422 }));
    expect(() => run.analyse(null, '  \n', null)).toThrow(expect.objectContaining({ status: 422 }));
    expect(() => run.analyse(null, 'x'.repeat(65), null)).toThrow(expect.objectContaining({ status: 413 }));
    expect(() => new ChecksOnlyRun(ctx.analyzers, 'jobs', 64).analyse(null, 'x', null)).toThrow(expect.objectContaining({ status: 422 }));
    expect(() => run.reportModel()).toThrow(expect.objectContaining({ status: 404 }));
  });
});
