/**
 * Runs compared (docs/decisions.md "Runs compared"): a plan analysed, re-analysed unchanged, then
 * with one firewall fixed, then reverted, all in one namespace over HTTP. The fixed unit's
 * findings are no longer detected (a view, not a status), resolved as fixed in one action; the
 * job says "+N new · −M no longer detected · K unchanged"; the report counts the latest run's
 * resources; last_seen and occurrence_count move on every run that sees a finding (cached or
 * not); the reverted unit's findings are flagged reappeared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

const PLAN = corpusFile('tfplan-json/infracost-azure-firewall.json').toString('utf8');
const UNITS = 11;
const FIXED_ADDRESS = 'azurerm_firewall.standard';
const RULE = 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF';
const NS = 'azure-firewall.json';

/** The plan with one firewall's threat intelligence set to Deny (the rule's compliant setting). */
function fixedPlan(): string {
  const plan = JSON.parse(PLAN) as { resource_changes: { address: string; change: { after: Record<string, unknown> } }[] };
  const firewall = plan.resource_changes.find((rc) => rc.address === FIXED_ADDRESS)!;
  firewall.change.after.threat_intel_mode = 'Deny';
  return JSON.stringify(plan);
}

type Finding = { resource_hash: string; rule_id: string; resource_address: string; status: string; last_seen: string; occurrence_count: number };
type Comparison = { new: number; no_longer_detected: number; unchanged: number };

let clock = new Date('2026-11-20T09:00:00.000Z');
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ start: { now: () => clock } });
});
afterAll(async () => {
  await server.close();
});

/** A checks-only analysis (no model) of `raw` into NS, one minute after the last; returns the job as GET /jobs/{id} shows it. */
async function analyse(raw: string): Promise<Record<string, unknown> & { runs_compared: Comparison | null; resource_count: number }> {
  clock = new Date(clock.getTime() + 60_000);
  const res = await server.api(`/terraform/${NS}/analyze`, { method: 'POST', json: { raw_input: raw } });
  expect(res.status).toBe(200);
  const { job_id } = (await res.json()) as { job_id: string };
  return (await (await server.api(`/jobs/${job_id}`)).json()) as never;
}

async function findings(query: string): Promise<Finding[]> {
  const res = await server.api(`/findings?namespace=${NS}&limit=1000${query}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { findings: Finding[] }).findings;
}

const key = (f: Finding) => `${f.resource_hash} ${f.rule_id}`;

async function reportTotal(): Promise<string> {
  const { markdown_report } = (await (await server.api(`/${NS}/report`)).json()) as { markdown_report: string };
  return /Resources: (\d+) in total/.exec(markdown_report)![1];
}

describe('runs compared', () => {
  it('a fixed unit is no longer detected, resolved in one action, and flagged reappeared when it comes back', async () => {
    const first = await analyse(PLAN);
    const all = await findings('');
    expect(all.length).toBeGreaterThan(1);
    expect(first.runs_compared).toEqual({ new: all.length, no_longer_detected: 0, unchanged: 0 });

    // Unchanged re-run: every unit's result comes from the cache, and still every finding was seen again.
    const second = await analyse(PLAN);
    expect(second.runs_compared).toEqual({ new: 0, no_longer_detected: 0, unchanged: all.length });
    for (const f of await findings('')) expect(f).toMatchObject({ last_seen: clock.toISOString(), occurrence_count: 2 });

    // One firewall fixed: its unit changes, its old findings are no longer detected.
    const fixed = all.filter((f) => f.resource_address === FIXED_ADDRESS);
    expect(fixed.map((f) => f.rule_id)).toContain(RULE);
    const third = await analyse(fixedPlan());
    expect(third.resource_count).toBe(UNITS);
    const gone = await findings('&detection=no_longer_detected');
    expect(gone.map(key).sort()).toEqual(fixed.map(key).sort());
    expect(gone.every((f) => f.status === 'open')).toBe(true); // a view, not a sixth status
    const current = await findings('&detection=current');
    const added = current.filter((f) => f.resource_address === FIXED_ADDRESS);
    expect(added.map((f) => f.rule_id)).not.toContain(RULE);
    expect(third.runs_compared).toEqual({ new: added.length, no_longer_detected: fixed.length, unchanged: all.length - fixed.length });
    // The unchanged findings were seen by this run too; the fixed ones were not.
    for (const f of current.filter((c) => c.resource_address !== FIXED_ADDRESS))
      expect(f).toMatchObject({ last_seen: clock.toISOString(), occurrence_count: 3 });
    for (const f of gone) expect(f.occurrence_count).toBe(2);
    // The report counts the latest run's resources, not the old unit beside the new one.
    expect(await reportTotal()).toBe(String(UNITS));
    expect(((await (await server.api(`/${NS}/resources`)).json()) as unknown[]).length).toBe(UNITS + 1);

    // One action resolves them as fixed, through the triage service (audit, feedback log).
    const resolved = await server.api('/findings/resolve-no-longer-detected', { method: 'POST', json: { namespace: NS } });
    expect(resolved.status).toBe(200);
    const body = (await resolved.json()) as { namespace: string; resolved: Finding[] };
    expect(body.resolved.map(key).sort()).toEqual(fixed.map(key).sort());
    expect(body.resolved.every((f) => f.status === 'suppressed')).toBe(true);
    expect(await findings('&detection=no_longer_detected&status=open')).toEqual([]);
    const feedback = (await (await server.api(`/feedback?rule_id=${RULE}`)).json()) as { feedback: { reason_code: string; verdict: string }[] };
    expect(feedback.feedback).toContainEqual(expect.objectContaining({ reason_code: 'fixed', verdict: 'confirmed' }));
    const audit = await server.services.engine.stores.audit.list('default', { limit: 200, offset: 0 });
    expect(audit.filter((e) => e.action === 'finding.status_update')).toHaveLength(fixed.length);
    // Nothing left to resolve: a second call resolves none.
    const again = (await (await server.api('/findings/resolve-no-longer-detected', { method: 'POST', json: { namespace: NS } })).json()) as {
      resolved: unknown[];
    };
    expect(again.resolved).toEqual([]);

    // The firewall is reverted: its findings come back, flagged reappeared, with the status they were given.
    const fourth = await analyse(PLAN);
    const reappeared = await findings('&detection=reappeared');
    expect(reappeared.map(key).sort()).toEqual(fixed.map(key).sort());
    expect(reappeared.every((f) => f.status === 'suppressed' && f.occurrence_count === 3)).toBe(true);
    expect(fourth.runs_compared).toEqual({ new: fixed.length, no_longer_detected: added.length, unchanged: all.length - fixed.length });
    expect(await findings('&detection=no_longer_detected')).toHaveLength(added.length);
  });

  it('joins the current run with continue_run: one command sending several bodies is one run', async () => {
    const other = corpusFile('tfplan-json/checkov-gcp-modules.json').toString('utf8');
    const post = async (raw: string, extra: Record<string, unknown> = {}) =>
      server.api('/terraform/two-parts/analyze', { method: 'POST', json: { raw_input: raw, ...extra } });
    const total = async () => {
      const { markdown_report } = (await (await server.api('/two-parts/report')).json()) as { markdown_report: string };
      return Number(/Resources: (\d+) in total/.exec(markdown_report)![1]);
    };
    const first = (await (await post(PLAN)).json()) as { resource_count: number };
    const second = (await (await post(other, { continue_run: true })).json()) as { resource_count: number };
    expect(await total()).toBe(first.resource_count + second.resource_count);
    const parts = await server.api('/findings?namespace=two-parts&detection=no_longer_detected');
    expect(((await parts.json()) as { findings: unknown[] }).findings).toEqual([]);
    // Without it, the later body is a run of its own and the namespace's current state.
    await post(other);
    expect(await total()).toBe(second.resource_count);
    expect((await post(other, { continue_run: 'yes' })).status).toBe(422);
  });

  it('refuses a detection filter without exactly one namespace, and an unknown namespace to resolve', async () => {
    expect((await server.api('/findings?detection=current')).status).toBe(422);
    expect((await server.api('/findings?detection=current&namespace=a&namespace=b')).status).toBe(422);
    expect((await server.api('/findings?detection=gone&namespace=a')).status).toBe(400); // not one of the values
    expect((await server.api('/findings?detection=current&namespace=never-ingested')).status).toBe(200);
    const unknown = await server.api('/findings/resolve-no-longer-detected', { method: 'POST', json: { namespace: 'never-ingested' } });
    expect(unknown.status).toBe(404);
    expect((await server.api('/findings/resolve-no-longer-detected', { method: 'POST', json: {} })).status).toBe(422);
  });
});
