import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CALIBRATION_BEGIN } from '../../engine/src/llm/prompt';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { otherOrg, roleHeaders } from '../helpers/org-keys';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

/**
 * Acceptance scenario of issue 4 over HTTP: analyse a corpus plan against the fake provider,
 * triage through every status, read the feedback log and rule health, refresh → apply a
 * proposal, and see the amended rule (and reviewer calibration) in the next prompt.
 */
let fake: FakeProvider;
let server: TestServer;
const PLAN = 'tfplan-json/tfcompliance-aws-deletes-drift-issue522.json'; // 15 resource changes
const MIN_SAMPLES = 3;
/** The fake model reports the first rule it is sent, the default ruleset's first: one per unit. */
const MODEL_RULE = 'TF-GEN-SECRET-PLAINTEXT';

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({
    fake,
    overrides: { server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 100 }, rule_health: { min_samples: MIN_SAMPLES } },
  });
});
afterAll(async () => {
  await server.close();
  await fake.close();
});

type Finding = { resource_hash: string; rule_id: string; status: string; note: string | null; updated_by: string | null; updated_at: string | null };

async function analyze(namespace: string) {
  const res = await server.api(`/terraform/${namespace}/analyze`, {
    method: 'POST',
    json: { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test', raw_input: corpusFile(PLAN).toString('utf8') },
  });
  expect(res.status).toBe(200);
  return res.json() as Promise<{ job_id: string }>;
}

async function patch(f: Finding, body: Record<string, unknown>, headers?: Record<string, string>) {
  return server.api(`/findings/${f.resource_hash}/${encodeURIComponent(f.rule_id)}`, { method: 'PATCH', json: body, headers });
}

async function health() {
  const res = await server.api('/rule-health');
  expect(res.status).toBe(200);
  return res.json() as Promise<{ rules: Record<string, any>[]; settings: Record<string, unknown> }>;
}

describe('triage that learns (scenario)', () => {
  let findings: Finding[];
  let ruleId: string;
  /** Findings of deterministic checks (issue 15): other rules, made without the model, left open. */
  let checked = 0;

  it('analysis creates one open triage record per finding', async () => {
    await analyze('triage-a');
    const res = await server.api('/findings?limit=1000');
    expect(res.status).toBe(200);
    const all = ((await res.json()) as { findings: Finding[] }).findings;
    expect(all.every((f) => f.status === 'open')).toBe(true);
    findings = all.filter((f) => f.rule_id === MODEL_RULE);
    expect(findings.length).toBe(15);
    checked = all.length - findings.length;
    ruleId = MODEL_RULE;
    expect(Object.keys(findings[0]).sort()).toEqual([
      'first_seen',
      'last_seen',
      'note',
      'occurrence_count',
      'resource_address',
      'resource_hash',
      'rule_id',
      'severity',
      'status',
      'title',
      'updated_at',
      'updated_by',
    ]);
    const ns = (await (await server.api('/findings?namespace=triage-a&limit=2&offset=1')).json()) as { findings: Finding[] };
    expect(ns.findings).toHaveLength(2);
  });

  it('moves findings through every status; verdicts append to the feedback log', async () => {
    // Two verdicts: precision stays null below min_samples.
    expect((await patch(findings[0], { status: 'acknowledged', note: 'real problem' })).status).toBe(200);
    expect((await patch(findings[1], { status: 'false_positive', note: 'the value is a placeholder' })).status).toBe(200);
    let rule = (await health()).rules.find((r) => r.rule_id === ruleId)!;
    expect(rule).toMatchObject({ confirmed: 1, rejected: 1, precision: null, calibrating: false });

    const steps: [Finding, Record<string, unknown>, string][] = [
      [findings[2], { status: 'false_positive', reason_code: 'false_positive', note: 'generated test fixture, not a secret' }, 'rejected'],
      [findings[3], { status: 'suppressed', reason_code: 'not_applicable_here', note: 'sandbox account only' }, 'rejected'],
      [findings[4], { status: 'suppressed' }, 'unclear'],
      [findings[5], { status: 'suppressed', reason_code: 'accepted_risk' }, 'confirmed'],
    ];
    for (const [f, body] of steps) {
      const res = await patch(f, body);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: body.status, rule_id: f.rule_id });
    }
    // needs_review and open record no verdict.
    expect((await patch(findings[6], { status: 'needs_review' })).status).toBe(200);
    const reopened = await patch(findings[6], { status: 'open', note: 'looked again' });
    expect(await reopened.json()).toMatchObject({ status: 'open', note: 'looked again', updated_by: expect.any(String), updated_at: expect.any(String) });

    const log = (await (await server.api('/feedback')).json()) as { feedback: Record<string, any>[]; total: number };
    expect(log.total).toBe(6);
    expect(log.feedback.map((f) => f.verdict)).toEqual(['confirmed', 'unclear', 'rejected', 'rejected', 'rejected', 'confirmed']);
    expect(log.feedback[0]).toMatchObject({ source: 'dashboard_triage', trusted: true, reason_code: 'accepted_risk', namespace: 'triage-a', rule_id: ruleId });
    expect(log.feedback[0].provenance).toEqual({ provider: null, repo: null, pr_number: null, comment_id: null });
    const rejected = (await (await server.api('/feedback?verdict=rejected&limit=2')).json()) as { feedback: unknown[]; total: number };
    expect(rejected).toMatchObject({ total: 3 });
    expect(rejected.feedback).toHaveLength(2);

    rule = (await health()).rules.find((r) => r.rule_id === ruleId)!;
    expect(rule).toMatchObject({ confirmed: 2, rejected: 3, unclear: 1, severity_wrong: 0, total: 6, precision: 0.4, calibrating: true });
    expect(rule.title).toBe('Secret value in plain text');
    const { settings } = await health();
    expect(settings).toEqual({ calibration_enabled: true, min_samples: MIN_SAMPLES, severity_ceiling: 'CRITICAL', trusted_only: true });
  });

  it('POST /feedback records an api verdict; summary counts statuses', async () => {
    const res = await server.api('/feedback', {
      method: 'POST',
      json: { resource_hash: findings[7].resource_hash, rule_id: ruleId, verdict: 'severity_wrong', comment: 'medium at most' },
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ source: 'api', trusted: true, verdict: 'severity_wrong' });
    expect(
      (await server.api('/feedback', { method: 'POST', json: { resource_hash: 'nope', rule_id: ruleId, verdict: 'confirmed', comment: '' } })).status,
    ).toBe(404);
    expect(
      (await server.api('/feedback', { method: 'POST', json: { resource_hash: findings[7].resource_hash, rule_id: ruleId, verdict: 'maybe' } })).status,
    ).toBe(422);

    const summary = (await (await server.api('/findings/summary?days=7')).json()) as Record<string, any>;
    expect(summary).toMatchObject({
      period_days: 7,
      total: 15 + checked,
      by_status: { open: 9 + checked, needs_review: 0, acknowledged: 1, suppressed: 3, false_positive: 2 },
      new_in_period: 15 + checked,
      resolved_in_period: 6,
    });
    expect(Object.values(summary.by_severity_open as Record<string, number>).reduce((a, b) => a + b, 0)).toBe(9 + checked);
    const open = (await (await server.api('/findings?status=false_positive')).json()) as { findings: Finding[] };
    expect(open.findings).toHaveLength(2);
  });

  it('refresh is idempotent, apply edits the rule and the next prompt carries the amended text', async () => {
    const first = await server.api('/rule-proposals/refresh', { method: 'POST' });
    expect(first.status).toBe(200);
    const refreshed = (await first.json()) as { created: number; proposals: Record<string, any>[] };
    expect(refreshed.created).toBe(1);
    const proposal = refreshed.proposals.find((p) => p.rule_id === ruleId)!;
    expect(proposal).toMatchObject({ status: 'pending', evidence: { confirmed: 2, rejected: 3, precision: 0.4 } });
    expect(proposal.reviewer_quotes).toContain(JSON.stringify('generated test fixture, not a secret'));
    const amendment = proposal.changes.description_amendment as string;
    expect(amendment).toContain('precision 0.40');

    const again = (await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as { created: number; proposals: { proposal_id: string }[] };
    expect(again.created).toBe(0);
    expect(again.proposals.map((p) => p.proposal_id)).toEqual([proposal.proposal_id]);

    const rulesBefore = await (await server.api('/terraform/rules')).text();
    const applied = await server.api(`/rule-proposals/${proposal.proposal_id}/apply`, { method: 'POST' });
    expect(applied.status).toBe(200);
    expect(await applied.json()).toMatchObject({ proposal_id: proposal.proposal_id, status: 'applied' });
    expect((await server.api(`/rule-proposals/${proposal.proposal_id}/apply`, { method: 'POST' })).status).toBe(409);
    expect((await server.api(`/rule-proposals/${proposal.proposal_id}/dismiss`, { method: 'POST' })).status).toBe(409);
    expect((await server.api('/rule-proposals/prop_unknown/apply', { method: 'POST' })).status).toBe(404);
    const listed = (await (await server.api('/rule-proposals?status=applied')).json()) as { proposals: unknown[] };
    expect(listed.proposals).toHaveLength(1);

    const rulesAfter = await (await server.api('/terraform/rules')).text();
    expect(rulesAfter).not.toBe(rulesBefore);
    expect(rulesAfter).toContain(amendment.split('\n')[0]);
    // No new pending proposal from the evidence the decision already covered.
    expect(((await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as { created: number }).created).toBe(0);

    const before = fake.requests.length;
    await analyze('triage-b'); // same plan, changed ruleset digest: re-analysed
    const prompts = fake.requests.slice(before);
    expect(prompts.length).toBe(15);
    for (const p of prompts) {
      expect(p.system).toContain(amendment.split('\n')[0]);
      expect(p.system).toContain(CALIBRATION_BEGIN);
      expect(p.system).toContain(`Rule ${ruleId}`);
      expect(p.system).toContain('sandbox account only');
    }
    // Re-analysis never resets a set status.
    const after = (await (await server.api(`/findings?rule_id=${ruleId}&status=acknowledged`)).json()) as {
      findings: (Finding & { occurrence_count: number })[];
    };
    expect(after.findings[0].occurrence_count).toBe(2);

    const audit = await server.services.engine.stores.audit.list('default', { limit: 200, offset: 0 });
    const actions = audit.map((e) => e.action);
    expect(actions).toContain('finding.status_update');
    expect(actions).toContain('rule_proposal.apply');
    expect(actions).toContain('rule.update');
  });

  it('dismiss leaves the rule untouched; proposals are withdrawn when evidence no longer supports them', async () => {
    // Enough confirmations lift precision above the threshold: the next pending proposal is withdrawn.
    const engine = server.services.engine;
    const ruleBefore = await engine.stores.customRules.get('default', ruleId);
    const extra = findings.slice(8, 14);
    for (const f of extra.slice(0, 2)) await patch(f, { status: 'false_positive', note: 'still noisy' });
    const created = (await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as {
      created: number;
      proposals: { proposal_id: string }[];
    };
    expect(created.created).toBe(1);
    const dismissed = await server.api(`/rule-proposals/${created.proposals[0].proposal_id}/dismiss`, { method: 'POST' });
    expect(await dismissed.json()).toMatchObject({ status: 'dismissed' });
    expect(await engine.stores.customRules.get('default', ruleId)).toEqual(ruleBefore);

    await patch(extra[2], { status: 'false_positive', note: 'noise again' });
    const pending = (await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as {
      created: number;
      proposals: { proposal_id: string }[];
    };
    expect(pending.created).toBe(1);
    for (const f of [...extra.slice(3), findings[14]]) await patch(f, { status: 'acknowledged' });
    for (const f of findings.slice(9, 11))
      await server.api('/feedback', { method: 'POST', json: { resource_hash: f.resource_hash, rule_id: ruleId, verdict: 'confirmed', comment: '' } });
    const withdrawn = (await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as { withdrawn: number };
    expect(withdrawn.withdrawn).toBe(1);
    const state = (await (await server.api('/rule-proposals?status=withdrawn')).json()) as { proposals: { proposal_id: string }[] };
    expect(state.proposals.map((p) => p.proposal_id)).toEqual([pending.proposals[0].proposal_id]);
    expect((await server.api(`/rule-proposals/${pending.proposals[0].proposal_id}/apply`, { method: 'POST' })).status).toBe(409);
  });
});

describe('proposal for a rule that is gone', () => {
  it('apply answers 404 once the rule row was deleted', async () => {
    const cat = await server.api('/orgs/default/rule-categories', { method: 'POST', json: { name: 'Scenario' } });
    expect(cat.status).toBe(201);
    const rule = await server.api('/orgs/default/rules', {
      method: 'POST',
      json: { title: 'Gone rule', description: 'x', category: 'scenario', severity: 'LOW', analyzers: ['terraform'] },
    });
    expect(rule.status).toBe(201);
    const resources = (await (await server.api('/triage-a/resources')).json()) as { hash: string; value: { name: string } }[];
    for (const r of resources.slice(0, MIN_SAMPLES)) {
      const finding = {
        title: 'g',
        severity: 'LOW',
        rule_id: 'CUSTOM-GONE-RULE',
        risk: 'r',
        why_it_matters: 'w',
        suggested_next_step: 'n',
        confidence: 'HIGH',
        evidence: [],
        resource_address: r.value.name,
        tags: [],
      };
      expect((await server.api(`/resource/${r.hash}/analysis`, { method: 'PUT', json: { summary: 's', findings: [finding] } })).status).toBe(200);
      expect((await server.api(`/findings/${r.hash}/CUSTOM-GONE-RULE`, { method: 'PATCH', json: { status: 'false_positive' } })).status).toBe(200);
    }
    const refreshed = (await (await server.api('/rule-proposals/refresh', { method: 'POST' })).json()) as {
      proposals: { proposal_id: string; rule_id: string }[];
    };
    const proposal = refreshed.proposals.find((p) => p.rule_id === 'CUSTOM-GONE-RULE')!;
    expect(proposal).toBeDefined();
    expect((await server.api('/orgs/default/rules/CUSTOM-GONE-RULE', { method: 'DELETE' })).status).toBe(200);
    expect((await server.api(`/rule-proposals/${proposal.proposal_id}/apply`, { method: 'POST' })).status).toBe(404);
  });
});

describe('findings: roles, tenancy, validation', () => {
  it('viewer 403, member may triage but not refresh, other org 404, bad input 422', async () => {
    const [f] = ((await (await server.api('/findings?limit=1')).json()) as { findings: Finding[] }).findings;
    const viewer = await roleHeaders(server, 'viewer');
    const member = await roleHeaders(server, 'member');
    expect((await server.api('/findings', { headers: viewer })).status).toBe(403);
    expect((await server.api('/findings', { headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    expect((await server.api('/rule-proposals/refresh', { method: 'POST', headers: { 'X-API-Key': 'pwk_bogus' } })).status).toBe(401);
    expect((await server.api('/feedback', { headers: viewer })).status).toBe(403);
    expect((await server.api('/rule-health', { headers: viewer })).status).toBe(403);
    expect((await patch(f, { status: 'open' }, viewer)).status).toBe(403);
    expect((await patch(f, { status: 'open' }, member)).status).toBe(200);
    expect((await server.api('/rule-proposals/refresh', { method: 'POST', headers: member })).status).toBe(403);

    const other = await otherOrg(server);
    expect((await patch(f, { status: 'open' }, other.headers)).status).toBe(404);
    expect(((await (await server.api('/findings', { headers: other.headers })).json()) as { findings: unknown[] }).findings).toEqual([]);
    expect(
      (
        await server.api('/feedback', {
          method: 'POST',
          headers: other.headers,
          json: { resource_hash: f.resource_hash, rule_id: f.rule_id, verdict: 'confirmed' },
        })
      ).status,
    ).toBe(404);
    expect(((await (await server.api('/rule-health', { headers: other.headers })).json()) as { rules: unknown[] }).rules).toEqual([]);

    expect((await patch(f, { status: 'closed' })).status).toBe(422);
    expect((await patch(f, { status: 'suppressed', reason_code: 'because' })).status).toBe(422);
    expect((await patch({ ...f, resource_hash: 'unknown' }, { status: 'open' })).status).toBe(404);
    for (const q of ['limit=0', 'limit=1001', 'offset=-1']) expect((await server.api(`/findings?${q}`)).status).toBe(422);
    // Unknown filter values and parameters are 400 (identity-api.md "Errors": unknown filter).
    for (const q of ['status=closed', 'severity=SEVERE', 'colour=red']) expect((await server.api(`/findings?${q}`)).status).toBe(400);
    for (const days of ['0', '366', 'x']) expect((await server.api(`/findings/summary?days=${days}`)).status).toBe(422);
    expect((await server.api('/feedback?limit=1001')).status).toBe(422);
    expect((await server.api('/rule-proposals?status=maybe')).status).toBe(400);
  });
});
