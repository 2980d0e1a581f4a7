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

export const CUSTOM_RULE_INDEXES: Record<string, IndexSpec[]> = {
  custom_rules: [{ name: 'org_rule', keys: { org_id: 1, rule_id: 1 }, unique: true }],
  rule_categories: [{ name: 'org_category', keys: { org_id: 1, category_id: 1 }, unique: true }],
};

export interface CustomRuleFilter {
  category?: string;
  rule_type?: string;
  enabled?: boolean;
}

/** Typed store for an org's custom rules and rule categories. Every method takes the org first. */
export class CustomRuleStore {
  private readonly rules: Collection<CustomRuleDoc>;
  private readonly categories: Collection<RuleCategoryDoc>;
  constructor(store: Store) {
    this.rules = store.collection<CustomRuleDoc>('custom_rules');
    this.categories = store.collection<RuleCategoryDoc>('rule_categories');
  }

  /** Throws ConflictError when the org already has the rule_id. */
  insert(doc: CustomRuleDoc): Promise<CustomRuleDoc> {
    return this.rules.insertOne(doc);
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
    return this.rules.findOneAndUpdate({ org_id: orgId, rule_id: ruleId }, { $set: changes }, { returnDocument: 'after' });
  }

  async delete(orgId: string, ruleId: string): Promise<boolean> {
    return (await this.rules.deleteOne({ org_id: orgId, rule_id: ruleId })) > 0;
  }

  countInCategory(orgId: string, categoryId: string): Promise<number> {
    return this.rules.count({ org_id: orgId, category: categoryId });
  }

  /** Throws ConflictError when the org already has the category_id. */
  insertCategory(doc: RuleCategoryDoc): Promise<RuleCategoryDoc> {
    return this.categories.insertOne(doc);
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
    return this.categories.findOneAndUpdate({ org_id: orgId, category_id: categoryId }, { $set: changes }, { returnDocument: 'after' });
  }

  async deleteCategory(orgId: string, categoryId: string): Promise<boolean> {
    return (await this.categories.deleteOne({ org_id: orgId, category_id: categoryId })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly customRules: CustomRuleStore;
  }
}
