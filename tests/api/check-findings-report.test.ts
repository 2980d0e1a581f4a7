/**
 * A checks-only analysis (no `llm_backend`) reads like a security engineer wrote it, in every
 * face that reads the stored finding: for every finding, the Markdown report and the SARIF
 * `message` carry the rule's own Risk and Remediation text and the attribute path and value
 * the check failed on (`threat_intel_mode = "Alert"`), never the CEL expression.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as Sarif from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_ANALYZERS } from '../../engine/src/analyzers/registry';
import { ruleSections } from '../../engine/src/checks/finding-text';
import { mdText } from '../../engine/src/report/render';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules, type RuleDef } from '../../engine/src/rules/ruleset';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

const INPUTS: [namespace: string, text: () => string][] = [
  ['sample-firewall', () => readFileSync(resolve(import.meta.dirname, '../../resources/examples/azure-firewall-plan.json'), 'utf8')],
  ['aws-modules', () => corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString('utf8')],
  ['k8s-privileged', () => corpusFile('k8s-yaml/k8s-examples-sysdig-daemonset-privileged-hostpath.yaml').toString('utf8')],
  ['dockerfile', () => corpusFile('dockerfile/k8s-examples-meteor-dockerbase.Dockerfile').toString('utf8')],
];

/** Built-in rules by id. */
const RULES = new Map<string, RuleDef>(
  BUILT_IN_ANALYZERS.flatMap((a) => listBuiltinRuleVariants(a.name).flatMap((v) => parseRules(loadBuiltinRuleset(a.name, v)))).map((r) => [r.rule_id, r]),
);

/** A rule paragraph as the finding states it: code spans unwrapped, one trailing full stop. */
const plain = (text: string) => text.replace(/`([^`]+)`/g, '$1').replace(/\.$/, '');

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  for (const [namespace, text] of INPUTS) {
    const res = await server.api(`/${namespace}/analyze/auto`, { method: 'POST', json: { raw_input: text() } });
    expect(res.status, await res.clone().text()).toBe(200);
  }
}, 120_000);
afterAll(async () => {
  await server?.close();
});

/** One finding as SARIF states it: its rule, address and the three texts of its message (sarif.ts resultMessage). */
interface SarifFinding {
  rule_id: string;
  resource_address: string;
  risk: string;
  why: string;
  next: string;
  message: string;
}

async function reports(namespace: string): Promise<{ markdown: string; findings: SarifFinding[] }> {
  const markdown = ((await (await server.api(`/${namespace}/report`)).json()) as { markdown_report: string }).markdown_report;
  const sarif = ((await (await server.api(`/${namespace}/report?format=sarif`)).json()) as { sarif_report: Sarif.Log }).sarif_report;
  const findings = sarif.runs[0].results!.map((r) => {
    const message = r.message.text ?? '';
    const [, risk = '', why = '', next = ''] = message.split('\n\n');
    return {
      rule_id: r.ruleId!,
      resource_address: String(r.properties?.resource_address),
      risk,
      why: why.replace(/^Why it matters: /, ''),
      next: next.replace(/^Next step: /, ''),
      message,
    };
  });
  return { markdown, findings: findings.filter((f) => f.rule_id !== 'NO-FINDINGS') };
}

describe('check findings in the report and SARIF', () => {
  it.each(INPUTS.map(([ns]) => ns))('%s: every finding carries its rule’s risk and remediation and what failed, in Markdown and SARIF', async (namespace) => {
    const { markdown, findings } = await reports(namespace);
    expect(findings.length).toBeGreaterThan(0);
    expect(findings.filter((f) => / (?:sets|has) \S/.test(f.risk)).length, 'findings naming the failing setting').toBeGreaterThan(0);
    for (const f of findings) {
      const rule = RULES.get(f.rule_id)!;
      expect(rule, f.rule_id).toBeDefined();
      const sections = ruleSections(rule.body);
      // The rule's own words, not "See rule X" or the CEL expression.
      expect(f.why, f.rule_id).toContain(plain(sections.risk!));
      expect(f.next, f.rule_id).toContain(plain(sections.remediation!));
      expect(f.message).not.toMatch(/values\.|has\(|See rule|no longer applies|Deterministic check of rule/);
      // What failed: the unit, then `path = value` when the check read a setting, else the evidence line
      // that shows it, else the attributes left unset (a missing companion names only the unit).
      const title = rule.title.replace(/`([^`]+)`/g, '$1');
      expect(f.risk.startsWith(f.resource_address), f.risk).toBe(true);
      expect(f.risk.slice(f.resource_address.length), f.rule_id).toMatch(/^(?: sets [\w.[\]"-]+ = \S.*| has \S.*| leaves [\w, ]+ unset)?: /);
      expect(f.risk.endsWith(`: ${title}.`) || f.risk.endsWith(`: ${title}`), f.risk).toBe(true);
      for (const text of [f.risk, f.why, f.next]) expect(markdown, `${f.rule_id} on ${f.resource_address}`).toContain(mdText(text));
    }
  });

  it('names the failing attribute and value of the sample plan’s firewalls', async () => {
    const { findings } = await reports('sample-firewall');
    expect(findings.map((f) => f.rule_id)).toEqual(Array(findings.length).fill('TF-AZURE-FIREWALL-THREAT-INTEL-OFF'));
    for (const f of findings) expect(f.risk).toBe(`${f.resource_address} sets threat_intel_mode = "Alert": Azure Firewall threat intelligence does not block.`);
  });

  it('lists the clean resources by their address, never the type twice', async () => {
    const { markdown } = await reports('aws-modules');
    const clean = markdown.split('## Resources analysed with no findings')[1] ?? '';
    expect(clean).toMatch(/`[\w.[\]"-]+`/);
    expect(clean).not.toMatch(/`(aws_\w+)\.\1\./);
    expect(markdown).not.toMatch(/`(aws_\w+)\.(?:module\.[\w-]+\.)*\1\./);
  });
});
