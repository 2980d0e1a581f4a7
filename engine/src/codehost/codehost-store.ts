import { ConflictError } from '../core/errors';
import type { Collection, IndexSpec, Store } from '../store/port';
import { OnceLedger, type ClaimDoc } from './once-ledger';

/**
 * Storage of the code-hosting integration (analysis-api.md "Code-hosting integration config"):
 * one integration per org, the installation bound to it (at most one org per installation:
 * docs/decisions.md "Installation binding"), one record per pull request analysed (where its
 * comment is), the webhook work already started (by delivery id and by pull-request event) and
 * the manifest flow's states.
 */

/** An org's own GitHub App (manifest flow); secrets sealed with the SecretBox, never presented. */
export interface CodehostAppDoc {
  app_id: string;
  app_slug: string;
  html_url: string;
  private_key_sealed: string;
  webhook_secret_sealed: string;
}

/** The integration's settings; its installation is the org's InstallationBindingDoc, not a field here. */
export interface CodehostIntegrationDoc {
  _id?: string;
  org_id: string;
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

/**
 * How an installation was proven to be the org's: the App's setup redirect carrying the org's
 * install state, a platform administrator, or the installation event of the org's own app.
 */
export type BindingProof = 'setup_url' | 'superadmin' | 'installation_event';

/** An installation bound to one org; unique by installation id and by org. */
export interface InstallationBindingDoc {
  _id?: string;
  installation_id: string;
  org_id: string;
  proof: BindingProof;
  bound_at: string;
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
    { name: 'app', keys: { 'codehost_app.app_id': 1 } },
  ],
  codehost_installations: [
    { name: 'installation', keys: { installation_id: 1 }, unique: true },
    { name: 'org', keys: { org_id: 1 }, unique: true },
  ],
  codehost_pulls: [{ name: 'org_namespace', keys: { org_id: 1, namespace: 1 }, unique: true }],
  codehost_deliveries: [
    { name: 'delivery', keys: { delivery_id: 1 }, unique: true },
    { name: 'ttl', keys: { received_at: 1 }, expireAfterSeconds: DELIVERY_TTL_SECONDS },
  ],
  codehost_pull_events: [
    { name: 'event', keys: { event_key: 1 }, unique: true },
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
  private readonly bindings: Collection<InstallationBindingDoc>;
  private readonly pulls: Collection<PullDoc>;
  private readonly states: Collection<ManifestStateDoc>;
  /** Webhook deliveries already accepted, by `X-GitHub-Delivery` (GitHub's redelivery keeps the id). */
  readonly deliveries: OnceLedger;
  /**
   * Pull-request events already acted on, by their content (installation, repository, number,
   * head sha, action): a replay of the same signed bytes under a new delivery id starts nothing.
   */
  readonly pullEvents: OnceLedger;

  constructor(store: Store) {
    this.integrations = store.collection<CodehostIntegrationDoc>('codehost_integrations');
    this.bindings = store.collection<InstallationBindingDoc>('codehost_installations');
    this.pulls = store.collection<PullDoc>('codehost_pulls');
    this.states = store.collection<ManifestStateDoc>('codehost_manifest_states');
    this.deliveries = new OnceLedger(store.collection<ClaimDoc>('codehost_deliveries'), 'delivery_id');
    this.pullEvents = new OnceLedger(store.collection<ClaimDoc>('codehost_pull_events'), 'event_key');
  }

  get(orgId: string): Promise<CodehostIntegrationDoc | null> {
    return this.integrations.findOne({ org_id: orgId });
  }

  /** Upserts the fields given, keeping created_at and every field not named. */
  async upsert(
    orgId: string,
    fields: Partial<Omit<CodehostIntegrationDoc, '_id' | 'org_id' | 'created_at' | 'updated_at'>>,
    now: string,
  ): Promise<CodehostIntegrationDoc> {
    const insertDefaults: Record<string, unknown> = { created_at: now };
    for (const [key, value] of Object.entries({ llm_backend: null, model: null, rule_type: null, codehost_app: null })) {
      if (!(key in fields)) insertDefaults[key] = value;
    }
    await this.integrations.updateOne({ org_id: orgId }, { $set: { ...fields, updated_at: now }, $setOnInsert: insertDefaults }, { upsert: true });
    return (await this.get(orgId)) as CodehostIntegrationDoc;
  }

  /** Deletes the integration and its installation binding; false when there was no integration. */
  async delete(orgId: string): Promise<boolean> {
    await this.bindings.deleteOne({ org_id: orgId });
    return (await this.integrations.deleteOne({ org_id: orgId })) > 0;
  }

  /** The installation bound to the org, or null. */
  installationOf(orgId: string): Promise<InstallationBindingDoc | null> {
    return this.bindings.findOne({ org_id: orgId });
  }

  /**
   * Binds `installationId` to the org, replacing the org's previous installation. Throws
   * ConflictError (409) when another org holds it; the unique index decides between racing
   * binders on every backend. Returns the binding (the existing one when already the org's).
   */
  async bindInstallation(orgId: string, installationId: string, proof: BindingProof, now: string): Promise<InstallationBindingDoc> {
    const held = await this.unsafeBindingOf(installationId);
    if (held && held.org_id !== orgId) throw new ConflictError('This installation is bound to another organization');
    if (held) return held;
    try {
      await this.bindings.updateOne({ org_id: orgId }, { $set: { installation_id: installationId, proof, bound_at: now } }, { upsert: true });
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
      const winner = await this.unsafeBindingOf(installationId);
      if (winner?.org_id === orgId) return winner;
      throw new ConflictError('This installation is bound to another organization');
    }
    return (await this.installationOf(orgId)) as InstallationBindingDoc;
  }

  /** Unbinds `installationId` from the org; false when it was not the org's. */
  async unbindInstallation(orgId: string, installationId: string): Promise<boolean> {
    return (await this.bindings.deleteOne({ org_id: orgId, installation_id: installationId })) > 0;
  }

  /**
   * Cross-tenant on purpose: a webhook names only its installation; this finds the one org it is
   * bound to, whose secret verifies the call. The signature check, not this lookup, authenticates it.
   */
  unsafeBindingOf(installationId: string): Promise<InstallationBindingDoc | null> {
    return this.bindings.findOne({ installation_id: installationId });
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
    await this.pulls.updateOne(
      { org_id: orgId, namespace },
      { $set: { ...fields, updated_at: now }, $setOnInsert: fields.comment_id === undefined ? { comment_id: null } : {} },
      { upsert: true },
    );
    return (await this.getPull(orgId, namespace)) as PullDoc;
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

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** The code-hosting integration: configs, pull requests, deliveries, manifest states. */
    readonly codehost: CodehostStore;
  }
}
