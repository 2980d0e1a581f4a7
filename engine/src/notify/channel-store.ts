import type { Collection, IndexSpec, Store } from '../store/port';

/** Outcome of a channel's latest delivery (analysis-api.md "Notification channel" `last_delivery`). */
export interface DeliveryOutcome {
  ok: boolean;
  /** Null when nothing was sent (egress refusal, DNS or connection failure). */
  status_code: number | null;
  error: string | null;
  event: string;
  at: string;
}

/** analysis-api.md "Notification channel"; the URL and secret are sealed at rest and never presented. */
export interface ChannelDoc {
  _id?: string;
  org_id: string;
  channel_id: string;
  label: string;
  kind: 'chat' | 'webhook';
  target_url_sealed: string;
  target_url_hint: string;
  secret_sealed: string | null;
  events: string[];
  enabled: boolean;
  created_at: string;
  updated_at: string;
  last_delivery: DeliveryOutcome | null;
}

export const CHANNEL_INDEXES: Record<string, IndexSpec[]> = {
  notification_channels: [
    { name: 'channel', keys: { org_id: 1, channel_id: 1 }, unique: true },
    { name: 'org_created', keys: { org_id: 1, created_at: 1 } },
  ],
};

/** Typed store for notification channels. Every method takes the org first. */
export class ChannelStore {
  private readonly channels: Collection<ChannelDoc>;
  constructor(store: Store) {
    this.channels = store.collection<ChannelDoc>('notification_channels');
  }

  /** The org's channels, oldest first. */
  list(orgId: string): Promise<ChannelDoc[]> {
    return this.channels.find({ org_id: orgId }, { sort: { created_at: 1, channel_id: 1 } });
  }

  count(orgId: string): Promise<number> {
    return this.channels.count({ org_id: orgId });
  }

  get(orgId: string, channelId: string): Promise<ChannelDoc | null> {
    return this.channels.findOne({ org_id: orgId, channel_id: channelId });
  }

  /** Enabled channels subscribed to `event`. */
  subscribed(orgId: string, event: string): Promise<ChannelDoc[]> {
    return this.channels.find({ org_id: orgId, enabled: true, events: event });
  }

  async insert(doc: ChannelDoc): Promise<ChannelDoc> {
    await this.channels.insertOne(doc);
    return doc;
  }

  update(orgId: string, channelId: string, changes: Partial<ChannelDoc>): Promise<ChannelDoc | null> {
    return this.channels.findOneAndUpdate({ org_id: orgId, channel_id: channelId }, { $set: changes }, { returnDocument: 'after' });
  }

  async delete(orgId: string, channelId: string): Promise<boolean> {
    return (await this.channels.deleteOne({ org_id: orgId, channel_id: channelId })) > 0;
  }
}

// The composition root (stores.ts) builds this store into EngineContext.stores (context/engine-context.ts "Stores").
declare module '../context/engine-context' {
  interface Stores {
    readonly channels: ChannelStore;
  }
}
