import type { Collection, IndexSpec, Store } from '../store/port';
import type { OrgRole } from './types';

/** One `group_role_mappings` entry: a regular expression over group names and the role it gives. */
export interface GroupRoleMapping {
  pattern: string;
  role: Exclude<OrgRole, 'owner'>;
}

/** An org's SCIM configuration (identity-api.md "SCIM config"); only the token's SHA-256 is stored. */
export interface ScimConfigDoc {
  _id?: string;
  org_id: string;
  enabled: boolean;
  default_role: Exclude<OrgRole, 'owner'>;
  group_role_mappings: GroupRoleMapping[];
  token_hash: string;
  created_at: string;
  updated_at: string;
}

/** The identity provider's `externalId` of a user or group of one org. */
interface ScimLinkDoc {
  _id?: string;
  org_id: string;
  kind: 'user' | 'group';
  /** user_id or team_id. */
  id: string;
  external_id: string | null;
}

export const SCIM_INDEXES: Record<string, IndexSpec[]> = {
  scim_configs: [
    { name: 'org', keys: { org_id: 1 }, unique: true },
    { name: 'token', keys: { token_hash: 1 }, unique: true },
  ],
  scim_links: [{ name: 'org_kind_id', keys: { org_id: 1, kind: 1, id: 1 }, unique: true }],
};

/**
 * Typed store for SCIM configurations and external ids. Tenant methods take the org first;
 * `unsafeByTokenHash` is cross-tenant by design: the bearer token is what names the org.
 */
export class ScimStore {
  private readonly configs: Collection<ScimConfigDoc>;
  private readonly links: Collection<ScimLinkDoc>;
  constructor(store: Store) {
    this.configs = store.collection<ScimConfigDoc>('scim_configs');
    this.links = store.collection<ScimLinkDoc>('scim_links');
  }

  get(orgId: string): Promise<ScimConfigDoc | null> {
    return this.configs.findOne({ org_id: orgId });
  }

  /** Inserts; ConflictError when the org already has one. */
  async insert(doc: ScimConfigDoc): Promise<ScimConfigDoc> {
    return this.configs.insertOne(doc);
  }

  update(orgId: string, changes: Partial<ScimConfigDoc>): Promise<ScimConfigDoc | null> {
    return this.configs.findOneAndUpdate({ org_id: orgId }, { $set: changes }, { returnDocument: 'after' });
  }

  async remove(orgId: string): Promise<boolean> {
    return (await this.configs.deleteOne({ org_id: orgId })) > 0;
  }

  /** The configuration holding this token hash, whatever its org (the token names the org). */
  unsafeByTokenHash(tokenHash: string): Promise<ScimConfigDoc | null> {
    return this.configs.findOne({ token_hash: tokenHash });
  }

  /** externalId of every linked user or group of the org, by id. */
  async externalIds(orgId: string, kind: 'user' | 'group'): Promise<Map<string, string | null>> {
    const rows = await this.links.find({ org_id: orgId, kind });
    return new Map(rows.map((r) => [r.id, r.external_id]));
  }

  async setExternalId(orgId: string, kind: 'user' | 'group', id: string, externalId: string | null): Promise<void> {
    await this.links.updateOne({ org_id: orgId, kind, id }, { $set: { external_id: externalId } }, { upsert: true });
  }

  async removeLink(orgId: string, kind: 'user' | 'group', id: string): Promise<void> {
    await this.links.deleteOne({ org_id: orgId, kind, id });
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    /** SCIM configurations (token hashes) and the identity provider's external ids. */
    readonly scim: ScimStore;
  }
}
