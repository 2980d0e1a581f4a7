/**
 * Issue 15 "Deterministic checks" over HTTP: `llm_backend` omitted runs the rules' CEL checks
 * alone (no model, no key, inline); with a model, the matches are stated to it as known facts and
 * kept in the stored analysis with HIGH confidence.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { corpusFile } from '../helpers/test-server';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const PLAN = 'tfplan-json/infracost-azure-firewall.json';
const env = useServerWithFakeProvider();
beforeEach(() => env.fake.reset());

type Finding = { rule_id: string; confidence: string; evidence: string[]; tags: string[] };
type Resource = { value: { type: string; name: string }; analysis: { summary: string; findings: Finding[] } | null };

describe('deterministic checks', () => {
  it('with llm_backend omitted, only the checks run: findings with evidence and no provider call', async () => {
    const res = await env.server.api('/terraform/checks-only/analyze', { method: 'POST', json: { raw_input: corpusFile(PLAN).toString('utf8') } });
    expect(res.status).toBe(200); // inline whatever the unit count: no model to wait for
    const body = (await res.json()) as { job_id: string; report_markdown: string; resource_count: number };
    expect(body.resource_count).toBe(11);
    expect(env.fake.requests).toHaveLength(0);
    expect(env.fake.showRequests).toHaveLength(0);
    expect(body.report_markdown).toContain('TF-AZURE-FIREWALL-THREAT-INTEL-OFF');
    const job = (await (await env.server.api(`/jobs/${body.job_id}`)).json()) as Record<string, unknown>;
    expect(job).toMatchObject({ status: 'done', llm_backend: 'none', model: 'none', processed_count: 11 });

    const resources = (await (await env.server.api('/checks-only/resources')).json()) as Resource[];
    expect(resources.every((r) => r.analysis !== null)).toBe(true);
    const firewalls = resources.filter((r) => r.value.type === 'azurerm_firewall');
    for (const fw of firewalls) {
      expect(fw.analysis!.findings).toEqual([
        expect.objectContaining({ rule_id: 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF', confidence: 'HIGH', evidence: ['+ threat_intel_mode = "Alert"'] }),
      ]);
    }
    const group = resources.find((r) => r.value.type === 'azurerm_resource_group')!;
    expect(group.analysis!.findings.map((f) => f.rule_id)).toEqual(['NO-FINDINGS']);
  });

  it('a later analysis with a model re-analyses the units, gives the model the facts and keeps the proven finding', async () => {
    const res = await env.server.api('/terraform/checks-then-model/analyze', {
      method: 'POST',
      json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: corpusFile(PLAN).toString('utf8') },
    });
    expect([200, 202]).toContain(res.status);
    const { job_id } = (await res.json()) as { job_id: string };
    for (let i = 0; i < 400; i += 1) {
      const job = (await (await env.server.api(`/jobs/${job_id}`)).json()) as { status: string };
      if (job.status !== 'queued' && job.status !== 'running') break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const calls = env.fake.requests.filter((r) => r.backend === 'ollama');
    expect(calls).toHaveLength(11); // the checks-only analysis did not count as analysed for a model run
    const fwCall = calls.find((c) => c.user.includes('azurerm_firewall'))!;
    expect(fwCall.user).toContain('Known facts, established by deterministic checks');
    expect(fwCall.user).toContain('TF-AZURE-FIREWALL-THREAT-INTEL-OFF');
    const resources = (await (await env.server.api('/checks-then-model/resources')).json()) as Resource[];
    const fw = resources.find((r) => r.value.type === 'azurerm_firewall')!;
    expect(fw.analysis!.findings).toContainEqual(expect.objectContaining({ rule_id: 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF', confidence: 'HIGH' }));
  });
});
