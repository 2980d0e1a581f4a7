import { expectStatus, type ApiClient } from './api-client';
import type { SyncState } from './sync-state';

/** The fields of a finding record (analysis-api.md "Finding record") the merge reads. */
export interface TriageRecord {
  readonly resource_hash: string;
  readonly rule_id: string;
  readonly status: string;
  readonly note: string | null;
  readonly updated_at: string | null;
}

/** Which side's decision stands for one (resource_hash, rule_id). */
export type Outcome =
  | { readonly kind: 'none' }
  | { readonly kind: 'local_wins'; readonly conflict: boolean }
  | { readonly kind: 'team_wins'; readonly conflict: boolean };

/**
 * The merge rule of docs/decisions.md "Desktop sync" for one (resource_hash, rule_id): a side "decided" when its updated_at
 * is set and differs from the one recorded at the last sync. Only one side decided: it wins.
 * Both decided (a conflict): the later updated_at wins; a tie goes to the team (the shared record).
 * Nobody decided, or both already say the same status and note: nothing to do.
 */
export function decide(local: TriageRecord, team: TriageRecord, last: { local: string | null; team: string | null } | undefined): Outcome {
  const localDecided = local.updated_at !== null && local.updated_at !== (last?.local ?? null);
  const teamDecided = team.updated_at !== null && team.updated_at !== (last?.team ?? null);
  if (local.status === team.status && (local.note ?? null) === (team.note ?? null)) return { kind: 'none' };
  if (localDecided && teamDecided)
    return Date.parse(local.updated_at!) > Date.parse(team.updated_at!) ? { kind: 'local_wins', conflict: true } : { kind: 'team_wins', conflict: true };
  if (localDecided) return { kind: 'local_wins', conflict: false };
  if (teamDecided) return { kind: 'team_wins', conflict: false };
  return { kind: 'none' };
}

/** Statuses whose PATCH already appends a feedback entry (analysis-api.md "Finding status"). */
const VERDICT_STATUSES = new Set(['acknowledged', 'suppressed', 'false_positive']);
const VERDICT_OF: Record<string, string> = { acknowledged: 'confirmed', false_positive: 'rejected' };

/**
 * Keeps a losing decision in the team's feedback history (POST /feedback, analysis-api.md
 * "Findings and review feedback"), unless its own PATCH already put it there.
 */
async function keepLoser(team: ApiClient, loser: TriageRecord, side: 'desktop' | 'team', winner: TriageRecord): Promise<boolean> {
  if (side === 'team' && VERDICT_STATUSES.has(loser.status)) return false;
  const comment =
    `Superseded ${side} decision: status '${loser.status}' at ${loser.updated_at}${loser.note ? ` (note: ${loser.note})` : ''}; ` +
    `the later decision '${winner.status}' at ${winner.updated_at} stands (desktop sync, later decision wins).`;
  expectStatus(
    await team.call('POST', '/feedback', {
      json: { resource_hash: loser.resource_hash, rule_id: loser.rule_id, verdict: VERDICT_OF[loser.status] ?? 'unclear', comment: comment.slice(0, 4000) },
    }),
    [201],
    'keep the superseded decision',
  );
  return true;
}

export interface MergeCounts {
  patched: number;
  conflicts: number;
  kept_in_history: number;
}

/**
 * Applies the merge to every pair present on both sides, in one direction: `push` PATCHes
 * the team where the local decision wins; `pull` PATCHes the local record where the team's
 * wins. A conflict's loser is kept in the team's feedback history (the local history keeps its
 * own through the local PATCH). The state remembers both updated_at values after each step.
 */
export async function mergeTriage(options: {
  readonly direction: 'push' | 'pull';
  readonly local: ApiClient;
  readonly team: ApiClient;
  readonly state: SyncState;
  readonly localRecords: readonly TriageRecord[];
  readonly teamRecords: readonly TriageRecord[];
}): Promise<MergeCounts> {
  const { direction, local, team, state } = options;
  const teamByPair = new Map(options.teamRecords.map((r) => [`${r.resource_hash} ${r.rule_id}`, r]));
  const counts: MergeCounts = { patched: 0, conflicts: 0, kept_in_history: 0 };
  for (const mine of options.localRecords) {
    const theirs = teamByPair.get(`${mine.resource_hash} ${mine.rule_id}`);
    if (!theirs) continue;
    const outcome = decide(mine, theirs, state.pair(mine.resource_hash, mine.rule_id));
    const path = `/findings/${encodeURIComponent(mine.resource_hash)}/${encodeURIComponent(mine.rule_id)}`;
    if (outcome.kind === 'local_wins' && direction === 'push') {
      const updated = expectStatus(await team.call('PATCH', path, { json: { status: mine.status, note: mine.note } }), [200], `PATCH ${path}`)
        .body as TriageRecord;
      if (outcome.conflict && (await keepLoser(team, theirs, 'team', mine))) counts.kept_in_history += 1;
      state.setPair(mine.resource_hash, mine.rule_id, mine.updated_at, updated.updated_at);
    } else if (outcome.kind === 'team_wins' && direction === 'pull') {
      const updated = expectStatus(await local.call('PATCH', path, { json: { status: theirs.status, note: theirs.note } }), [200], `local PATCH ${path}`)
        .body as TriageRecord;
      if (outcome.conflict && (await keepLoser(team, mine, 'desktop', theirs))) counts.kept_in_history += 1;
      state.setPair(mine.resource_hash, mine.rule_id, updated.updated_at, theirs.updated_at);
    } else {
      continue;
    }
    counts.patched += 1;
    if (outcome.conflict) counts.conflicts += 1;
  }
  return counts;
}
