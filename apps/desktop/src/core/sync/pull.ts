import { expectStatus, listAll, type ApiClient } from './api-client';
import type { SyncState } from './sync-state';
import { mergeTriage, type MergeCounts, type TriageRecord } from './triage-merge';

export interface PullCounts {
  readonly categories_created: number;
  readonly rules_created: number;
  readonly rules_updated: number;
  readonly triage: MergeCounts;
}

interface Category {
  category_id: string;
  name: string;
  description: string;
}
interface Rule {
  rule_id: string;
  title: string;
  description: string;
  category: string;
  severity: string;
  analyzers: string[];
  rule_type: string | null;
  enabled: boolean;
  requires_review: boolean;
  is_builtin_seed: boolean;
}

const RULE_FIELDS = ['title', 'description', 'category', 'severity', 'analyzers', 'rule_type', 'enabled', 'requires_review'] as const;

async function orgOf(api: ApiClient, side: string): Promise<string> {
  const me = expectStatus(await api.call('GET', '/auth/me'), [200], `${side} identity`).body as { org_id: string | null };
  if (!me.org_id) throw new Error(`The ${side} credential belongs to no organization`);
  return me.org_id;
}

/**
 * Pulls from the team org: its custom rules (not the imported built-ins, which both
 * sides already have) with their categories — created locally when missing, updated when
 * different, so local analysis uses them from then on (analysis-api.md "Custom rules"); then the
 * team's triage statuses, merged by the later-decision rule (triage-merge.ts). Rules are matched
 * by rule_id; a team rule whose title changed after creation gets a new id locally (ids derive
 * from the title at creation). Throws TeamUnreachableError or SyncRefusedError.
 */
export async function pullFromTeam(options: { readonly local: ApiClient; readonly team: ApiClient; readonly state: SyncState }): Promise<PullCounts> {
  const { local, team, state } = options;
  const [teamOrg, localOrg] = [await orgOf(team, 'team'), await orgOf(local, 'local')];
  const get = async <T>(api: ApiClient, path: string, key: string) => expectStatus(await api.call('GET', path), [200], `GET ${path}`).body[key] as T[];

  const localCategories = new Set((await get<Category>(local, `/orgs/${localOrg}/rule-categories`, 'categories')).map((c) => c.category_id));
  let categoriesCreated = 0;
  for (const c of await get<Category>(team, `/orgs/${teamOrg}/rule-categories`, 'categories')) {
    if (localCategories.has(c.category_id)) continue;
    expectStatus(
      await local.call('POST', `/orgs/${localOrg}/rule-categories`, { json: { name: c.name, description: c.description } }),
      [201],
      `create category ${c.category_id}`,
    );
    categoriesCreated += 1;
  }

  const localRules = new Map((await get<Rule>(local, `/orgs/${localOrg}/rules`, 'rules')).map((r) => [r.rule_id, r]));
  let created = 0;
  let updated = 0;
  for (const rule of await get<Rule>(team, `/orgs/${teamOrg}/rules`, 'rules')) {
    if (rule.is_builtin_seed) continue;
    const fields = Object.fromEntries(RULE_FIELDS.map((f) => [f, rule[f]]));
    const mine = localRules.get(rule.rule_id);
    if (!mine) {
      // 409: the rule exists locally under the id its current title derives (a renamed team rule).
      const answer = expectStatus(await local.call('POST', `/orgs/${localOrg}/rules`, { json: fields }), [201, 409], `create rule ${rule.rule_id}`);
      if (answer.status === 201) created += 1;
    } else if (RULE_FIELDS.some((f) => JSON.stringify(mine[f]) !== JSON.stringify(rule[f]))) {
      expectStatus(
        await local.call('PATCH', `/orgs/${localOrg}/rules/${encodeURIComponent(rule.rule_id)}`, { json: fields }),
        [200],
        `update rule ${rule.rule_id}`,
      );
      updated += 1;
    }
  }

  const triage = await mergeTriage({
    direction: 'pull',
    local,
    team,
    state,
    localRecords: await listAll<TriageRecord>(local, '/findings', 'findings'),
    teamRecords: await listAll<TriageRecord>(team, '/findings', 'findings'),
  });
  return { categories_created: categoriesCreated, rules_created: created, rules_updated: updated, triage };
}
