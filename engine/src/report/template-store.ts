import type { Collection, Filter, IndexSpec, Store } from '../store/port';
import type { ReportFormat } from './render';

/** analysis-api.md "Report template". */
export interface ReportTemplateDoc {
  _id?: string;
  org_id: string;
  template_id: string;
  name: string;
  format: ReportFormat;
  source: string;
  is_default: boolean;
  is_builtin_seed: boolean;
  created_by: string | null;
  created_at: string;
  updated_at: string | null;
}

export const TEMPLATE_INDEXES: Record<string, IndexSpec[]> = {
  report_templates: [
    { name: 'org_template', keys: { org_id: 1, template_id: 1 }, unique: true },
    { name: 'org_format_default', keys: { org_id: 1, format: 1, is_default: 1 } },
  ],
};

/** Typed store for org report templates. Every method takes the org first. */
export class ReportTemplateStore {
  private readonly templates: Collection<ReportTemplateDoc>;
  constructor(store: Store) {
    this.templates = store.collection<ReportTemplateDoc>('report_templates');
  }

  /** Throws ConflictError when the org already has the template_id. */
  insert(doc: ReportTemplateDoc): Promise<ReportTemplateDoc> {
    return this.templates.insertOne(doc);
  }

  get(orgId: string, templateId: string): Promise<ReportTemplateDoc | null> {
    return this.templates.findOne({ org_id: orgId, template_id: templateId });
  }

  list(orgId: string, filter: { format?: ReportFormat; is_default?: boolean } = {}): Promise<ReportTemplateDoc[]> {
    const query: Filter = { org_id: orgId };
    if (filter.format !== undefined) query.format = filter.format;
    if (filter.is_default !== undefined) query.is_default = filter.is_default;
    return this.templates.find(query, { sort: { template_id: 1 } });
  }

  /** The org's default template for `format`, if any. */
  defaultFor(orgId: string, format: ReportFormat): Promise<ReportTemplateDoc | null> {
    return this.templates.findOne({ org_id: orgId, format, is_default: true });
  }

  /** Clears is_default on every template of `format` except `keepTemplateId`. */
  async clearDefaults(orgId: string, format: ReportFormat, keepTemplateId: string): Promise<void> {
    await this.templates.updateMany({ org_id: orgId, format, is_default: true, template_id: { $ne: keepTemplateId } }, { $set: { is_default: false } });
  }

  update(
    orgId: string,
    templateId: string,
    changes: Partial<Pick<ReportTemplateDoc, 'name' | 'source' | 'is_default' | 'updated_at'>>,
  ): Promise<ReportTemplateDoc | null> {
    return this.templates.findOneAndUpdate({ org_id: orgId, template_id: templateId }, { $set: changes }, { returnDocument: 'after' });
  }

  async delete(orgId: string, templateId: string): Promise<boolean> {
    return (await this.templates.deleteOne({ org_id: orgId, template_id: templateId })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly templates: ReportTemplateStore;
  }
}
