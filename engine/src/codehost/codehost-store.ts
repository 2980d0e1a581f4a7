import { ConflictError } from '../errors';
import type { Collection, IndexSpec, Store } from '../store/port';

/**
 * Storage of the code-hosting integration (analysis-api.md "Code-hosting integration config"):
 * one integration per org, one record per pull request analysed (where its comment is), the
 * webhook deliveries already accepted (redelivery dedup) and the manifest flow's states.
 */

/** An org's own GitHub App (manifest flow); secrets sealed with the SecretBox, never presented. */
export interface CodehostAppDoc {
  app_id: string;
  app_slug: string;
  html_url: string;
  private_key_sealed: string;
  webhook_secret_sealed: string;
}

export interface CodehostIntegrationDoc {
  _id?: string;
  org_id: string;
  installation_id: string | null;
  /** Null until the org saves its LLM config (an org's own app may exist before that). */
  llm_backend: string | null;
  model: string | null;
  rule_type: string | null;
  codehost_app: CodehostAppDoc | null;
  created_at: string;
  updated_at: string;
}

/** One pull request analysed for the org: its namespace, head commit and the report comment. */
export interface PullDoc {
  _id?: string;
  org_id: string;
  namespace: string;
  provider: 'github';
  owner: string;
  repo: string;
  pr_number: number;
  installation_id: string;
  head_sha: string;
  /** The app's report comment, once posted (null: none known). */
  comment_id: number | null;
  last_job_id: string | null;
  updated_at: string;
}

export interface DeliveryDoc {
  _id?: string;
  delivery_id: string;
  org_id: string;
  job_id: string | null;
  received_at: string;
}

export interface ManifestStateDoc {
  _id?: string;
  state_sha256: string;
  org_id: string;
  expires_at: string;
}

/** GitHub keeps redelivering a delivery id for days; a week of memory covers it. */
const DELIVERY_TTL_SECONDS = 7 * 86_400;

export const CODEHOST_INDEXES: Record<string, IndexSpec[]> = {
  codehost_integrations: [
    { name: 'org', keys: { org_id: 1 }, unique: true },
    { name: 'installation', keys: { installation_id: 1 } },
    { name: 'app', keys: { 'codehost_app.app_id': 1 } },
  ],
  codehost_pulls: [
    { name: 'org_namespace', keys: { org_id: 1, namespace: 1 }, unique: true },
  ],
  codehost_deliveries: [
    { name: 'delivery', keys: { delivery_id: 1 }, unique: true },
    { name: 'ttl', keys: { received_at: 1 }, expireAfterSeconds: DELIVERY_TTL_SECONDS },
  ],
  codehost_manifest_states: [
    { name: 'state', keys: { state_sha256: 1 }, unique: true },
    { name: 'ttl', keys: { expires_at: 1 }, expireAfterSeconds: 1 },
  ],
};

/** Typed store of the code-host aggregate. Tenant methods take the org first; webhook lookups are `unsafe*`. */
export class CodehostStore {
  private readonly integrations: Collection<CodehostIntegrationDoc>;
  private readonly pulls: Collection<PullDoc>;
  private readonly deliveries: Collection<DeliveryDoc>;
  private readonly states: Collection<ManifestStateDoc>;

  constructor(store: Store) {
    this.integrations = store.collection<CodehostIntegrationDoc>('codehost_integrations');
    this.pulls = store.collection<PullDoc>('codehost_pulls');
    this.deliveries = store.collection<DeliveryDoc>('codehost_deliveries');
    this.states = store.collection<ManifestStateDoc>('codehost_manifest_states');
  }

  get(orgId: string): Promise<CodehostIntegrationDoc | null> {
    return this.integrations.findOne({ org_id: orgId });
  }

  /** Upserts the fields given, keeping created_at and every field not named. */
  async upsert(orgId: string, fields: Partial<Omit<CodehostIntegrationDoc, '_id' | 'org_id' | 'created_at' | 'updated_at'>>, now: string): Promise<CodehostIntegrationDoc> {
    const insertDefaults: Record<string, unknown> = { created_at: now };
    for (const [key, value] of Object.entries({ installation_id: null, llm_backend: null, model: null, rule_type: null, codehost_app: null })) {
      if (!(key in fields)) insertDefaults[key] = value;
    }
    await this.integrations.updateOne({ org_id: orgId }, { $set: { ...fields, updated_at: now }, $setOnInsert: insertDefaults }, { upsert: true });
    return (await this.get(orgId)) as CodehostIntegrationDoc;
  }

  async delete(orgId: string): Promise<boolean> {
    return (await this.integrations.deleteOne({ org_id: orgId })) > 0;
  }

  /**
   * Cross-tenant on purpose: a webhook names only its installation (or app); this finds whose
   * secret to verify it with. The signature check, not this lookup, authenticates the call.
   */
  unsafeByInstallation(installationId: string): Promise<CodehostIntegrationDoc | null> {
    return this.integrations.findOne({ installation_id: installationId }, { sort: { created_at: 1 } });
  }

  /** Cross-tenant on purpose (see unsafeByInstallation): the org owning the app `appId`. */
  unsafeByApp(appId: string): Promise<CodehostIntegrationDoc | null> {
    return this.integrations.findOne({ 'codehost_app.app_id': appId });
  }

  getPull(orgId: string, namespace: string): Promise<PullDoc | null> {
    return this.pulls.findOne({ org_id: orgId, namespace });
  }

  /** The pull requests whose namespaces are among `namespaces`. */
  pullsIn(orgId: string, namespaces: readonly string[]): Promise<PullDoc[]> {
    return namespaces.length === 0 ? Promise.resolve([]) : this.pulls.find({ org_id: orgId, namespace: { $in: namespaces } });
  }

  async putPull(orgId: string, namespace: string, fields: Partial<Omit<PullDoc, '_id' | 'org_id' | 'namespace'>>, now: string): Promise<PullDoc> {
    await this.pulls.updateOne({ org_id: orgId, namespace }, { $set: { ...fields, updated_at: now }, $setOnInsert: fields.comment_id === undefined ? { comment_id: null } : {} }, { upsert: true });
    return (await this.getPull(orgId, namespace)) as PullDoc;
  }

  /**
   * Claims a webhook delivery id (X-GitHub-Delivery): the first caller gets null, a redelivery
   * gets the record of the first one (unique index, atomic on every backend).
   */
  async claimDelivery(deliveryId: string, orgId: string, now: string): Promise<DeliveryDoc | null> {
    try {
      return await this.deliveries.findOneAndUpdate(
        { delivery_id: deliveryId },
        { $setOnInsert: { org_id: orgId, job_id: null, received_at: now } },
        { upsert: true, returnDocument: 'before' },
      );
    } catch (error) {
      // Two concurrent deliveries of one id: the loser of the unique index sees the winner's record.
      if (!(error instanceof ConflictError)) throw error;
      return (await this.deliveries.findOne({ delivery_id: deliveryId })) ?? { delivery_id: deliveryId, org_id: orgId, job_id: null, received_at: now };
    }
  }

  async setDeliveryJob(deliveryId: string, jobId: string): Promise<void> {
    await this.deliveries.updateOne({ delivery_id: deliveryId }, { $set: { job_id: jobId } });
  }

  /** Forgets a claimed delivery whose work could not start, so GitHub's redelivery may retry it. */
  async releaseDelivery(deliveryId: string): Promise<void> {
    await this.deliveries.deleteOne({ delivery_id: deliveryId, job_id: null });
  }

  async insertState(doc: ManifestStateDoc): Promise<void> {
    await this.states.insertOne(doc);
  }

  /** Consumes a manifest state (single use): returns it once if unexpired at `now`, else null. */
  async takeState(stateSha256: string, now: string): Promise<ManifestStateDoc | null> {
    const doc = await this.states.findOneAndUpdate({ state_sha256: stateSha256 }, { $set: { expires_at: '' } }, { returnDocument: 'before' });
    if (!doc || doc.expires_at === '' || doc.expires_at <= now) return null;
    return doc;
  }
}
