/**
 * A unit keeps its check findings when the model fails (docs/decisions.md "Analysis layers"): the
 * checks' findings are stored and listed at once, the unit and the job say the model's part
 * failed, the report names the units that lack the model's review, and a retry with a working
 * provider adds the model's findings without counting the checks' findings twice.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { useServerWithFakeProvider } from '../helpers/fake-server';
import { corpusFile, waitForJob } from '../helpers/test-server';

// Every case uses a plan of its own: resources are shared per org by unit hash.
const FIREWALL = { plan: 'tfplan-json/infracost-azure-firewall.json', type: 'azurerm_firewall', rule: 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF' };
const SMALL_PLAN = 'tfplan-json/terraform-showjson-basic-delete.json'; // 2 units: the sync path
const OPENAI = { llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-test' };
const REFUSED = { status: 401, message: 'Incorrect API key provided' } as const;

const env = useServerWithFakeProvider({
  adjust: (config) => {
    config.analysis.llm_max_attempts = 1;
    config.analysis.max_concurrent_units = 1;
  },
});
beforeEach(() => env.fake.reset());

type Finding = { rule_id: string; tags: string[] };
type Resource = { hash: string; value: { type: string; name: string }; analysis: { summary: string; findings: Finding[] } | null };
type Record_ = { resource_hash: string; rule_id: string; occurrence_count: number };

const analyze = (ns: string, plan: string) =>
  env.server.api(`/terraform/${ns}/analyze`, { method: 'POST', json: { ...OPENAI, raw_input: corpusFile(plan).toString('utf8') } });
const resourcesOf = async (ns: string) => (await (await env.server.api(`/${ns}/resources`)).json()) as Resource[];
const findingsOf = async (ns: string) => ((await (await env.server.api(`/findings?namespace=${ns}&limit=200`)).json()) as { findings: Record_[] }).findings;
const reportOf = async (ns: string) => (await env.server.api(`/${ns}/report?raw=true`)).text();

describe('the model fails: the checks findings stay', () => {
  it('async: every unit keeps its check findings, the report names them, a retry adds the model and no duplicate', async () => {
    const ns = 'layers-async';
    env.fake.script([REFUSED]);
    const res = await analyze(ns, FIREWALL.plan);
    expect(res.status).toBe(202);
    const { job_id } = (await res.json()) as { job_id: string };
    const failed = await waitForJob(env.server, job_id);
    expect(failed).toMatchObject({ status: 'failed', processed_count: 0 });
    expect(failed.error).toContain('Incorrect API key provided');
    expect(env.fake.requests).toHaveLength(1); // no model call after the failure

    // Every unit holds its checks' findings; its summary says the model's review is missing.
    const resources = await resourcesOf(ns);
    const units = resources.length;
    expect(resources.every((r) => r.analysis !== null)).toBe(true);
    expect(resources.filter((r) => r.analysis!.summary.includes("The model's review failed"))).toHaveLength(1);
    expect(resources.filter((r) => r.analysis!.summary.includes("The model's review did not run"))).toHaveLength(units - 1);
    expect(resources.every((r) => Object.keys(r).sort().join() === 'analysis,hash,value')).toBe(true); // layers stay internal
    const firewall = resources.find((r) => r.value.type === FIREWALL.type)!;
    expect(firewall.analysis!.findings.map((f) => f.rule_id)).toContain(FIREWALL.rule);

    // The check finding is listed at once.
    const before = await findingsOf(ns);
    expect(before).toContainEqual(expect.objectContaining({ resource_hash: firewall.hash, rule_id: FIREWALL.rule, occurrence_count: 1 }));

    // The report says which units lack the model's review; the client-led flow still serves them.
    const report = await reportOf(ns);
    expect(report).toContain(`${units} resource(s) lack the model's review`);
    const line = report.split('\n').find((l) => l.includes("lack the model's review"))!;
    expect(line).toContain(`${firewall.value.name}\``); // named in the line's list of addresses
    expect((await env.server.api(`/${ns}/resource/next`)).status).toBe(200);

    // The retry runs the model's part of every unit, once, and adds its findings.
    const retry = await env.server.api(`/jobs/${job_id}/retry`, { method: 'POST', json: { api_key: 'sk-test' } });
    expect(retry.status).toBe(202);
    const done = await waitForJob(env.server, ((await retry.json()) as { job_id: string }).job_id);
    expect(done).toMatchObject({ status: 'done', processed_count: units, total_count: units, error: null });
    expect(env.fake.requests).toHaveLength(1 + units);

    const after = await resourcesOf(ns);
    for (const r of after) {
      expect(r.analysis!.summary).not.toContain("model's review");
      const ids = r.analysis!.findings.map((f) => f.rule_id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const reviewed = after.find((r) => r.hash === firewall.hash)!;
    expect(reviewed.analysis!.findings.filter((f) => f.rule_id === FIREWALL.rule)).toHaveLength(1);
    expect(reviewed.analysis!.findings.some((f) => f.tags.includes('fake'))).toBe(true);

    const records = await findingsOf(ns);
    expect(records.length).toBeGreaterThan(before.length);
    expect(new Set(records.map((f) => `${f.resource_hash} ${f.rule_id}`)).size).toBe(records.length);
    // The check's record was not observed a second time by the model's part.
    expect(records).toContainEqual(expect.objectContaining({ resource_hash: firewall.hash, rule_id: FIREWALL.rule, occurrence_count: 1 }));
    expect(await reportOf(ns)).not.toContain("lack the model's review");
    expect((await env.server.api(`/${ns}/resource/next`)).status).toBe(208);
    expect((await env.server.api(`/jobs/${done.job_id}/retry`, { method: 'POST', json: {} })).status).toBe(409);
  });

  it('sync: answers 502 with the job id, and the checks findings are stored', async () => {
    const ns = 'layers-sync';
    env.fake.script([REFUSED]);
    const res = await analyze(ns, SMALL_PLAN);
    expect(res.status).toBe(502);
    const body = (await res.json()) as { detail: string; job_id: string };
    expect(body.detail).toContain('Incorrect API key provided');
    const job = (await (await env.server.api(`/jobs/${body.job_id}`)).json()) as { status: string; mode: string };
    expect(job).toMatchObject({ status: 'failed', mode: 'sync' });
    const resources = await resourcesOf(ns);
    expect(resources.length).toBe(2);
    expect(resources.every((r) => r.analysis !== null && r.analysis.findings.length > 0)).toBe(true);
    expect(await reportOf(ns)).toContain("2 resource(s) lack the model's review");
  });
});
