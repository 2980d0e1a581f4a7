/**
 * Feedback entries written into a data directory's sqlite file before the benchmark's server
 * opens it (bench/event-loop.bench.ts): a log of `count` reviewer decisions on the rules of the
 * seeded findings (findings-list.bench.ts seedFindings), oldest first, in the layout
 * FeedbackStore.append writes. The feedback counters are left to rebuild from the log at their
 * first read, as after a restore.
 */
import { DEFAULT_ORG_ID } from '../engine/src/orgs/org-store';
import type { FeedbackDoc, Verdict } from '../engine/src/findings/feedback-store';
import { openStore } from '../engine/src/store/open-store';

const BATCH = 5_000;
/** Per rule of the seed, the verdicts in turn: some rules mostly rejected (a proposal), others mostly confirmed. */
const VERDICT_CYCLES: readonly (readonly Verdict[])[] = [
  ['rejected', 'rejected', 'confirmed', 'unclear'],
  ['confirmed', 'confirmed', 'rejected', 'severity_wrong'],
  ['severity_wrong', 'severity_wrong', 'confirmed', 'missed'],
  ['confirmed'],
];

/** Writes `count` feedback entries of the default org, one a minute from 2026-01-01, into `dataDir`'s store. */
export async function seedFeedback(dataDir: string, count: number): Promise<void> {
  if (count <= 0) return;
  const store = await openStore({ backend: 'sqlite', dataDir });
  try {
    const feedback = store.collection<FeedbackDoc>('feedback');
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let from = 0; from < count; from += BATCH) {
      const docs: FeedbackDoc[] = [];
      for (let i = from; i < Math.min(count, from + BATCH); i += 1) {
        const at = base + i * 60_000;
        const rule = i % 8;
        const cycle = VERDICT_CYCLES[rule % VERDICT_CYCLES.length];
        const verdict = cycle[Math.floor(i / 8) % cycle.length];
        docs.push({
          org_id: DEFAULT_ORG_ID,
          feedback_id: `fb_${at.toString(16).padStart(12, '0')}${i.toString(16).padStart(6, '0')}seed`,
          resource_hash: (i >> 3).toString(16).padStart(64, '0'),
          rule_id: `TF-AWS-RULE-${rule.toString().padStart(3, '0')}`,
          namespace: null,
          severity: 'HIGH',
          verdict,
          reason_code: verdict === 'rejected' ? 'false_positive' : null,
          comment: i % 3 === 0 ? `Seeded review ${i}: the bucket is private behind its policy` : '',
          source: 'api',
          actor: 'bench',
          trusted: i % 4 !== 3,
          provenance: { provider: null, repo: null, pr_number: null, comment_id: null },
          created_at: new Date(at).toISOString(),
        });
      }
      await feedback.insertMany(docs);
    }
  } finally {
    await store.close();
  }
}
