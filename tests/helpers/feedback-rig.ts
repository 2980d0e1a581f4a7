/**
 * A feedback log on an in-memory SQLite store for the rule-health and rule-proposal tests: an
 * engine context whose clock moves one minute per entry, and `feedback()` appending one entry
 * (and keeping the log of the main org, oldest first, for reference computations).
 */
import type { EngineContext } from '../../engine/src/context/engine-context';
import { silentLogger } from '../../engine/src/core/logger';
import type { Severity } from '../../engine/src/core/payload';
import type { FeedbackDoc, Verdict } from '../../engine/src/findings/feedback-store';
import { SecretBox } from '../../engine/src/llm/secret-box';
import { SqliteStore } from '../../engine/src/store/sqlite/store';
import { createStores, ensureSchema } from '../../engine/src/stores';

export interface FeedbackOptions {
  trusted?: boolean;
  severity?: Severity | null;
  comment?: string;
  /** Another org's entry (not kept in `log`). */
  org?: string;
}

export interface FeedbackRig {
  readonly ctx: EngineContext;
  /** The main org's entries, oldest first. */
  readonly log: FeedbackDoc[];
  /** Appends one entry one minute after the previous one (severity HIGH, trusted, API source unless told). */
  feedback(ruleId: string, verdict: Verdict, opts?: FeedbackOptions): Promise<FeedbackDoc>;
  close(): void;
}

/** Starts a rig for `org` on a fresh in-memory store, its clock at 2026-03-01T10:00Z. */
export async function startFeedbackRig(org: string): Promise<FeedbackRig> {
  const store = new SqliteStore(':memory:', 'memory');
  await ensureSchema(store);
  let clock = Date.parse('2026-03-01T10:00:00.000Z');
  let seq = 0;
  const log: FeedbackDoc[] = [];
  const ctx: EngineContext = {
    stores: createStores(store, new SecretBox('feedback-rig-test-secret-material-00')),
    analyzers: { list: () => [], get: () => undefined },
    now: () => new Date(clock),
    log: silentLogger,
  };
  return {
    ctx,
    log,
    async feedback(ruleId, verdict, opts = {}) {
      clock += 60_000;
      seq += 1;
      const doc: FeedbackDoc = {
        org_id: opts.org ?? org,
        feedback_id: `fb-${String(seq).padStart(6, '0')}`,
        resource_hash: 'h1',
        rule_id: ruleId,
        namespace: null,
        severity: opts.severity === undefined ? 'HIGH' : opts.severity,
        verdict,
        reason_code: null,
        comment: opts.comment ?? '',
        source: 'api',
        actor: null,
        trusted: opts.trusted ?? true,
        provenance: { provider: null, repo: null, pr_number: null, comment_id: null },
        created_at: new Date(clock).toISOString(),
      };
      await ctx.stores.feedback.append(doc);
      if (doc.org_id === org) log.push(doc);
      return doc;
    },
    close: () => store.close(),
  };
}
