import type { InputJournal } from '../input-journal';
import { expectStatus, listAll, type ApiClient } from './api-client';
import type { SyncState } from './sync-state';
import { mergeTriage, type MergeCounts, type TriageRecord } from './triage-merge';

export interface PushCounts {
  readonly namespace: string;
  /** Raw inputs re-ingested on the team server. */
  readonly inputs: number;
  /** Local analyses submitted with PUT (resources the team had not analysed yet). */
  readonly analyses_submitted: number;
  /** Resources the team had already analysed (nothing sent: no duplicate finding, no LLM call). */
  readonly analyses_skipped: number;
  readonly triage: MergeCounts;
}

interface ResourceDoc {
  hash: string;
  analysis: unknown;
}

/**
 * Pushes one namespace to the team org through its public API (docs/decisions.md "Desktop sync";
 * analysis-api.md "Ingest and client-led analysis", "Findings and review feedback"):
 * 1. each raw input journalled for the namespace is ingested again (same units, same hashes;
 *    ingest is idempotent);
 * 2. each locally analysed resource the team has not analysed is submitted with
 *    PUT /resource/{hash}/analysis — one the team already analysed is skipped, so a re-push
 *    creates no finding and costs no LLM call;
 * 3. each local triage decision newer than the team's is PATCHed (triage-merge.ts).
 * Throws TeamUnreachableError (the caller queues the push) or SyncRefusedError.
 */
export async function pushNamespace(options: {
  readonly namespace: string;
  readonly local: ApiClient;
  readonly team: ApiClient;
  readonly journal: InputJournal;
  readonly state: SyncState;
}): Promise<PushCounts> {
  const { namespace, local, team, journal, state } = options;
  const ns = encodeURIComponent(namespace);
  let inputs = 0;
  for (const entry of journal.list(namespace)) {
    const path = entry.analyzer === null ? `/${ns}/ingest/auto` : `/${encodeURIComponent(entry.analyzer)}/${ns}/ingest`;
    expectStatus(await team.call('POST', path, { text: journal.raw(entry) }), [201], `ingest into '${namespace}'`);
    inputs += 1;
  }

  const resources = expectStatus(await local.call('GET', `/${ns}/resources`), [200], `list local '${namespace}'`).body as ResourceDoc[];
  let submitted = 0;
  let skipped = 0;
  for (const resource of resources) {
    if (resource.analysis === null) continue;
    const hash = encodeURIComponent(resource.hash);
    const theirs = expectStatus(await team.call('GET', `/resource/${hash}?filter=analysis`), [200], `read team resource ${resource.hash}`).body as ResourceDoc;
    if (theirs.analysis !== null) {
      skipped += 1;
      continue;
    }
    expectStatus(await team.call('PUT', `/resource/${hash}/analysis`, { json: resource.analysis }), [200], `submit analysis ${resource.hash}`);
    submitted += 1;
  }

  const query = `/findings?namespace=${ns}`;
  const triage = await mergeTriage({
    direction: 'push',
    local,
    team,
    state,
    localRecords: await listAll<TriageRecord>(local, query, 'findings'),
    teamRecords: await listAll<TriageRecord>(team, query, 'findings'),
  });
  return { namespace, inputs, analyses_submitted: submitted, analyses_skipped: skipped, triage };
}
