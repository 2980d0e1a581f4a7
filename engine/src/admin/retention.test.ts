import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyzerRegistry } from '../analyzers/registry';
import type { EngineContext } from '../context/engine-context';
import { silentLogger } from '../core/logger';
import { SecretBox } from '../llm/secret-box';
import { SqliteStore } from '../store/sqlite/store';
import { createStores, ensureSchema } from '../stores';
import { retentionSteps, type RetentionSettings } from './retention';

/**
 * The retention sweep works org by org in bounded batches through the org-leading indexes: every
 * row outside its window goes, in every org, however many there are, and no step reads a whole
 * table (SQLite's query plan).
 */

const NOW = new Date('2026-06-01T00:00:00.000Z');
const DAY = 86_400_000;
const SETTINGS: RetentionSettings = {
  telemetry_days: 30,
  audit_days: 730,
  finding_low_medium_days: 180,
  finding_high_critical_days: 730,
  resource_content_days: 90,
  feedback_days: 730,
};
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString();

type Row = { _id?: string; [field: string]: unknown };
let store: SqliteStore;
let ctx: EngineContext;

beforeAll(async () => {
  store = new SqliteStore(':memory:', 'memory');
  await ensureSchema(store);
  ctx = {
    stores: createStores(store, new SecretBox('retention-test-secret-material-000')),
    analyzers: createAnalyzerRegistry(),
    now: () => NOW,
    log: silentLogger,
  };
  for (const org of ['org-a', 'org-b']) await ctx.stores.orgs.ensure({ org_id: org, name: org, slug: org, created_by: null }, NOW.toISOString());
});
afterAll(() => store.close());

describe('retention sweep', () => {
  it('purges and redacts every row outside its window in every org, over many batches, and nothing inside', async () => {
    const findings = store.collection<Row>('findings');
    const resources = store.collection<Row>('resources');
    const feedback = store.collection<Row>('feedback');
    for (const org of ['org-a', 'org-b']) {
      const n = org === 'org-a' ? 450 : 3;
      await findings.insertMany(
        Array.from({ length: n }, (_, i) => ({
          org_id: org,
          resource_hash: `old-${i}`,
          rule_id: 'R',
          severity: i % 2 ? 'LOW' : 'MEDIUM',
          last_seen: ago(181),
        })),
      );
      await findings.insertMany([
        { org_id: org, resource_hash: 'recent-low', rule_id: 'R', severity: 'LOW', last_seen: ago(179) },
        { org_id: org, resource_hash: 'old-high', rule_id: 'R', severity: 'HIGH', last_seen: ago(400) },
        { org_id: org, resource_hash: 'ancient-critical', rule_id: 'R', severity: 'CRITICAL', last_seen: ago(731) },
      ]);
      await resources.insertMany(Array.from({ length: n }, (_, i) => ({ org_id: org, hash: `r-old-${i}`, value: { body: 'secret' }, created_at: ago(91) })));
      await resources.insertOne({ org_id: org, hash: 'r-new', value: { body: 'keep' }, created_at: ago(89) });
      await feedback.insertMany(Array.from({ length: n }, (_, i) => ({ org_id: org, feedback_id: `${org}-fb-${i}`, rule_id: 'R', created_at: ago(731) })));
      await feedback.insertOne({ org_id: org, feedback_id: `${org}-fb-new`, rule_id: 'R', created_at: ago(10) });
    }

    const steps = retentionSteps(ctx, () => SETTINGS);
    expect(await steps.findings_purged(NOW)).toBe(2 * 1 + 450 + 3);
    expect(await steps.resources_redacted(NOW)).toBe(453);
    expect(await steps.feedback_purged(NOW)).toBe(453);

    for (const org of ['org-a', 'org-b']) {
      const left = (await findings.find({ org_id: org })).map((f) => f.resource_hash).sort();
      expect(left).toEqual(['old-high', 'recent-low']);
      expect(await resources.count({ org_id: org, 'value.body': 'secret' })).toBe(0);
      expect(await resources.findOne({ org_id: org, hash: 'r-new' })).toMatchObject({ value: { body: 'keep' } });
      expect((await feedback.find({ org_id: org })).map((f) => f.feedback_id)).toEqual([`${org}-fb-new`]);
    }
    // A second run finds nothing more to do (redacted bodies are not redacted again).
    expect(await steps.resources_redacted(NOW)).toBe(0);
    expect(await steps.findings_purged(NOW)).toBe(0);
  });

  it('reads each batch through an index of the org, never by scanning a table', () => {
    const queries: [string, Record<string, unknown>][] = [
      ['findings', { severity: { $in: ['INFO', 'LOW', 'MEDIUM'] }, last_seen: { $lt: ago(180) }, org_id: 'org-a' }],
      ['resources', { created_at: { $lt: ago(90) }, content_redacted_at: { $exists: false }, org_id: 'org-a' }],
      ['feedback', { created_at: { $lt: ago(730) }, org_id: 'org-a' }],
    ];
    for (const [collection, filter] of queries) {
      const plan = store.explainFind(collection, filter, { limit: 200 }).join(' | ');
      expect(plan, collection).toMatch(/USING (COVERING )?INDEX/);
      expect(plan, collection).not.toMatch(new RegExp(`SCAN ${collection}\\b(?! USING)`));
    }
  });
});
