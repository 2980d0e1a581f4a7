import { JobStore, JOB_INDEXES } from './analysis/job-store';
import { ResourceStore, RESOURCE_INDEXES } from './analysis/resource-store';
import { FindingStore, FINDING_INDEXES } from './findings/finding-store';
import { LlmCredentialStore, CREDENTIAL_INDEXES } from './llm/credential-store';
import { ModelStore, MODEL_INDEXES } from './llm/model-store';
import type { SecretBox } from './llm/secret-box';
import { OrgStore, ORG_INDEXES } from './orgs/org-store';
import type { IndexSpec, Store } from './store/port';
import { LlmCallStore, LLM_CALL_INDEXES } from './usage/llm-call-store';

/** Every typed store, built once on one storage port. Services call only these. */
export interface Stores {
  readonly store: Store;
  readonly orgs: OrgStore;
  readonly resources: ResourceStore;
  readonly findings: FindingStore;
  readonly jobs: JobStore;
  readonly llmCalls: LlmCallStore;
  readonly credentials: LlmCredentialStore;
  readonly models: ModelStore;
}

const ALL_INDEXES: Record<string, IndexSpec[]>[] = [
  ORG_INDEXES, RESOURCE_INDEXES, FINDING_INDEXES, JOB_INDEXES, LLM_CALL_INDEXES, CREDENTIAL_INDEXES, MODEL_INDEXES,
];

/** Creates every collection's indexes (idempotent; run at startup and by storage preparation). */
export async function ensureSchema(store: Store, extra: Record<string, IndexSpec[]>[] = []): Promise<number> {
  let collections = 0;
  for (const group of [...ALL_INDEXES, ...extra]) {
    for (const [name, indexes] of Object.entries(group)) {
      await store.ensureIndexes(name, indexes);
      collections += 1;
    }
  }
  return collections;
}

export function createStores(store: Store, box: SecretBox): Stores {
  return {
    store,
    orgs: new OrgStore(store),
    resources: new ResourceStore(store),
    findings: new FindingStore(store),
    jobs: new JobStore(store),
    llmCalls: new LlmCallStore(store),
    credentials: new LlmCredentialStore(store, box),
    models: new ModelStore(store),
  };
}
