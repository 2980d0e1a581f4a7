import { describe, expect, it } from 'vitest';
import { SEVERITY_ORDER } from '../../core/payload';
import { listBuiltinRuleVariants, loadBuiltinRuleset, parseRules } from '../../rules/ruleset';
import { createAnalyzerRegistry } from '../registry';

/** Analyzer → rule id prefix and the rules the issue asks for at least. */
const EXPECTED: Record<string, { prefix: string; ids: string[] }> = {
  kubernetes: {
    prefix: 'K8S-',
    ids: [
      'K8S-PRIVILEGED-CONTAINER',
      'K8S-HOST-NAMESPACES',
      'K8S-HOSTPATH-VOLUME',
      'K8S-RUN-AS-ROOT',
      'K8S-CAPABILITIES-ADDED',
      'K8S-NO-RESOURCE-LIMITS',
      'K8S-IMAGE-LATEST-TAG',
      'K8S-SECRET-IN-ENV',
      'K8S-SERVICE-EXPOSED',
      'K8S-RBAC-WILDCARD',
      'K8S-SA-TOKEN-AUTOMOUNT',
      'K8S-PSP-PRIVILEGED',
      'K8S-PSP-HOST-NAMESPACES',
    ],
  },
  dockerfile: {
    prefix: 'DOCKER-',
    ids: [
      'DOCKER-ROOT-USER',
      'DOCKER-UNPINNED-BASE-IMAGE',
      'DOCKER-CURL-PIPE-SHELL',
      'DOCKER-SECRET-IN-ENV-ARG',
      'DOCKER-ADD-REMOTE-URL',
      'DOCKER-NO-HEALTHCHECK',
      'DOCKER-DOWNLOAD-NO-CHECKSUM',
    ],
  },
  'github-actions': {
    prefix: 'GHA-',
    ids: [
      'GHA-PRT-UNTRUSTED-CHECKOUT',
      'GHA-SCRIPT-INJECTION',
      'GHA-UNPINNED-ACTION',
      'GHA-EXCESSIVE-PERMISSIONS',
      'GHA-SECRETS-TO-FORKS',
      'GHA-SELF-HOSTED-PUBLIC',
    ],
  },
  cloudformation: {
    prefix: 'CFN-',
    ids: [
      'CFN-S3-PUBLIC-ACCESS',
      'CFN-SG-OPEN-INGRESS',
      'CFN-SG-PARAM-DEFAULT-OPEN',
      'CFN-STORAGE-UNENCRYPTED',
      'CFN-IAM-WILDCARD',
      'CFN-LOGGING-DISABLED',
      'CFN-SECRET-PLAINTEXT',
    ],
  },
};

describe('built-in rulesets of the kubernetes, dockerfile, github-actions and cloudformation analyzers', () => {
  const registry = createAnalyzerRegistry();

  it.each(Object.keys(EXPECTED))("%s: the analyzer's variants are its rule files, and every rule is complete", (name) => {
    const analyzer = registry.get(name)!;
    expect(listBuiltinRuleVariants(name)).toEqual([...analyzer.ruleVariants!]);
    const rules = parseRules(loadBuiltinRuleset(name, analyzer.defaultRuleVariant!));
    expect(rules.map((r) => r.rule_id)).toEqual(EXPECTED[name].ids);
    for (const rule of rules) {
      expect(rule.rule_id.startsWith(EXPECTED[name].prefix)).toBe(true);
      expect(SEVERITY_ORDER).toContain(rule.severity);
      expect(rule.applies_to.length, rule.rule_id).toBeGreaterThan(0);
      // Shaped for the deterministic mechanism: one `Check:` line per rule (then its peers' ids), before `Look for:`.
      expect(rule.body, rule.rule_id).toMatch(/^Check: \S.*\n(?:Maps to: \S.*\n)?\nLook for:\n- /m);
      expect(rule.body.match(/^Non-compliant example:\n```\w+\n/gm), rule.rule_id).toHaveLength(1);
      expect(rule.body.match(/^Compliant example:\n```\w+\n/gm), rule.rule_id).toHaveLength(1);
    }
  });

  it('keeps rule ids unique across every analyzer', () => {
    const perAnalyzer = registry
      .list()
      .flatMap((a) => [...new Set((a.ruleVariants ?? []).flatMap((v) => parseRules(loadBuiltinRuleset(a.name, v)).map((r) => r.rule_id)))]);
    expect(new Set(perAnalyzer).size).toBe(perAnalyzer.length);
  });
});
