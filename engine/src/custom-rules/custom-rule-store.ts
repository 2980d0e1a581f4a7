import { randomUUID } from 'node:crypto';
import { insertedUnlessConflict } from '../core/errors';
import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { Severity } from '../core/payload';

/** analysis-api.md "Custom rule". */
export interface CustomRuleDoc {
  _id?: string;
  org_id: string;
  rule_id: string;
  title: string;
  description: string;
  category: string;
  severity: Severity;
  analyzers: string[];
  rule_type: string | null;
  enabled: boolean;
  requires_review: boolean;
  is_builtin_seed: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string | null;
}

/** A rule category (docs/decisions.md: `category_id` is the slug of `name`, immutable). */
export interface RuleCategoryDoc {
  _id?: string;
  org_id: string;
  category_id: string;
  name: string;
  description: string;
  is_builtin_seed: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string | null;
}

/**
 * One per org (`_id` = the org id): a random token replaced after every write to the org's rules
 * or categories, so a process can tell whether what it read before is still current (snapshot).
 */
interface RuleRevisionDoc {
  _id: string;
  org_id: string;
  revision: string;
}

export const CUSTOM_RULE_INDEXES: Record<string, IndexSpec[]> = {
  custom_rules: [{ name: 'org_rule', keys: { org_id: 1, rule_id: 1 }, unique: true }],
  rule_categories: [{ name: 'org_category', keys: { org_id: 1, category_id: 1 }, unique: true }],
  rule_revisions: [{ name: 'org', keys: { org_id: 1 } }],
};

/** An org's rules and categories as of one revision (CustomRuleStore.snapshot); shared, never to be mutated. */
export interface RuleSnapshot {
  readonly revision: string;
  /** Sorted by rule_id. */
  readonly rules: readonly Readonly<CustomRuleDoc>[];
  /** Sorted by category_id. */
  readonly categories: readonly Readonly<RuleCategoryDoc>[];
}

/** Orgs whose snapshot a store keeps (least recently read dropped first). */
const SNAPSHOT_ORGS = 64;

export interface CustomRuleFilter {
  category?: string;
  rule_type?: string;
  enabled?: boolean;
}

/** Typed store for an org's custom rules and rule categories. Every method takes the org first. */
export class CustomRuleStore {
  private readonly rules: Collection<CustomRuleDoc>;
  private readonly categories: Collection<RuleCategoryDoc>;
  private readonly revisions: Collection<RuleRevisionDoc>;
  private readonly snapshots = new Map<string, RuleSnapshot>();
  constructor(store: Store) {
    this.rules = store.collection<CustomRuleDoc>('custom_rules');
    this.categories = store.collection<RuleCategoryDoc>('rule_categories');
    this.revisions = store.collection<RuleRevisionDoc>('rule_revisions');
  }

  /**
   * The org's rules and categories, read again only when the org's revision moved since this
   * process last read them: rulesets are resolved per job, per client-led request and per triage
   * save, and each full read of a few hundred rows held the event loop. Correct across replicas
   * and processes sharing a store: every write here replaces the revision after its rows are
   * written (`touching`), and the revision is read before the rows, so rows read under a revision
   * hold every write that revision follows; a later write moves it again.
   */
  async snapshot(orgId: string): Promise<RuleSnapshot> {
    const revision = await this.revision(orgId);
    const cached = this.snapshots.get(orgId);
    this.snapshots.delete(orgId);
    if (cached?.revision === revision) {
      this.snapshots.set(orgId, cached);
      return cached;
    }
    const [rules, categories] = await Promise.all([this.list(orgId), this.listCategories(orgId)]);
    const fresh: RuleSnapshot = { revision, rules, categories };
    if (this.snapshots.size >= SNAPSHOT_ORGS) this.snapshots.delete(this.snapshots.keys().next().value!);
    this.snapshots.set(orgId, fresh);
    return fresh;
  }

  /** The org's current revision token, created when the org has none yet. */
  private async revision(orgId: string): Promise<string> {
    const doc = await this.revisions.findOne({ _id: orgId });
    if (doc) return doc.revision;
    const created = await this.revisions.findOneAndUpdate(
      { _id: orgId },
      { $setOnInsert: { org_id: orgId, revision: randomUUID() } },
      { upsert: true, returnDocument: 'after' },
    );
    return created!.revision;
  }

  /** Runs a write of the org's rules or categories, then moves the org's revision (also when the write failed part-way). */
  private async touching<R>(orgId: string, write: () => Promise<R>): Promise<R> {
    try {
      return await write();
    } finally {
      await this.revisions.updateOne({ _id: orgId }, { $set: { org_id: orgId, revision: randomUUID() } }, { upsert: true });
    }
  }

  /** Throws ConflictError when the org already has the rule_id. */
  insert(doc: CustomRuleDoc): Promise<CustomRuleDoc> {
    return this.touching(doc.org_id, () => this.rules.insertOne(doc));
  }

  /**
   * Inserts rules of one org, leaving out those whose rule_id the org already has (seeding):
   * all in one write when none exists yet, else one by one. Returns how many were inserted.
   */
  insertNew(orgId: string, docs: readonly CustomRuleDoc[]): Promise<number> {
    return this.touching(orgId, async () => {
      if (docs.length === 0) return 0;
      if (await insertedUnlessConflict(() => this.rules.insertMany(docs))) return docs.length;
      let inserted = 0;
      for (const doc of docs) if (await insertedUnlessConflict(() => this.rules.insertOne(doc))) inserted += 1;
      return inserted;
    });
  }

  get(orgId: string, ruleId: string): Promise<CustomRuleDoc | null> {
    return this.rules.findOne({ org_id: orgId, rule_id: ruleId });
  }

  /** Sorted by rule_id. `analyzer` filtering is done by callers (array membership). */
  list(orgId: string, filter: CustomRuleFilter = {}): Promise<CustomRuleDoc[]> {
    const query: Filter = { org_id: orgId };
    if (filter.category !== undefined) query.category = filter.category;
    if (filter.rule_type !== undefined) query.rule_type = filter.rule_type;
    if (filter.enabled !== undefined) query.enabled = filter.enabled;
    return this.rules.find(query, { sort: { rule_id: 1 } });
  }

  update(orgId: string, ruleId: string, changes: Partial<Omit<CustomRuleDoc, '_id' | 'org_id' | 'rule_id'>>): Promise<CustomRuleDoc | null> {
    return this.touching(orgId, () => this.rules.findOneAndUpdate({ org_id: orgId, rule_id: ruleId }, { $set: changes }, { returnDocument: 'after' }));
  }

  async delete(orgId: string, ruleId: string): Promise<boolean> {
    return (await this.touching(orgId, () => this.rules.deleteOne({ org_id: orgId, rule_id: ruleId }))) > 0;
  }

  countInCategory(orgId: string, categoryId: string): Promise<number> {
    return this.rules.count({ org_id: orgId, category: categoryId });
  }

  /** Throws ConflictError when the org already has the category_id. */
  insertCategory(doc: RuleCategoryDoc): Promise<RuleCategoryDoc> {
    return this.touching(doc.org_id, () => this.categories.insertOne(doc));
  }

  getCategory(orgId: string, categoryId: string): Promise<RuleCategoryDoc | null> {
    return this.categories.findOne({ org_id: orgId, category_id: categoryId });
  }

  listCategories(orgId: string): Promise<RuleCategoryDoc[]> {
    return this.categories.find({ org_id: orgId }, { sort: { category_id: 1 } });
  }

  updateCategory(
    orgId: string,
    categoryId: string,
    changes: Partial<Pick<RuleCategoryDoc, 'name' | 'description' | 'updated_at'>>,
  ): Promise<RuleCategoryDoc | null> {
    return this.touching(orgId, () =>
      this.categories.findOneAndUpdate({ org_id: orgId, category_id: categoryId }, { $set: changes }, { returnDocument: 'after' }),
    );
  }

  async deleteCategory(orgId: string, categoryId: string): Promise<boolean> {
    return (await this.touching(orgId, () => this.categories.deleteOne({ org_id: orgId, category_id: categoryId }))) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly customRules: CustomRuleStore;
  }
}
