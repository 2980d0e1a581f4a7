import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SEVERITY_ORDER } from '../core/payload';
import { NotFoundError, ValidationError } from '../core/errors';
import {
  clearRulesetCache,
  composeRuleset,
  listBuiltinRuleVariants,
  loadBuiltinRuleset,
  parseRules,
  rulesetDigest,
  type CustomRuleSection,
  type RuleDef,
} from './ruleset';

const TERRAFORM_VARIANTS = ['default', 'aws', 'azure', 'gcp'] as const;
const ID_PREFIX: Record<(typeof TERRAFORM_VARIANTS)[number], string> = {
  default: 'TF-GEN-',
  aws: 'TF-AWS-',
  azure: 'TF-AZURE-',
  gcp: 'TF-GCP-',
};

/** The rules a variant file adds on top of default.md (the loader composes default + variant). */
function ownRules(analyzer: string, variant: string): RuleDef[] {
  const all = parseRules(loadBuiltinRuleset(analyzer, variant));
  if (variant === 'default') return all;
  const base = new Set(parseRules(loadBuiltinRuleset(analyzer, 'default')).map((r) => r.rule_id));
  return all.filter((r) => !base.has(r.rule_id));
}

function lookFor(body: string): string {
  const m = /^Look for[^\n]*:[ \t]*\n([\s\S]*?)\n(?:Non-compliant|Compliant) example:/m.exec(body);
  return m ? m[1].trim() : '';
}

/** Counts `Compliant example:` / `Non-compliant example:` labels, each directly followed by a fence of `lang`. */
function examples(body: string, lang: string | null) {
  const fence = lang ? `\`\`\`${lang}` : '```[a-z]+';
  const count = (label: string) => (body.match(new RegExp(`^${label} example:\\n${fence}\\n`, 'gm')) ?? []).length;
  return { compliant: count('Compliant'), nonCompliant: count('Non-compliant') };
}

const sortedByKey = (rules: RuleDef[]) => rules.map((r) => r.rule_id);

describe('built-in terraform rulesets', () => {
  const perVariant = new Map(TERRAFORM_VARIANTS.map((v) => [v, ownRules('terraform', v)]));
  const all = [...perVariant.values()].flat();

  it('lists the variants with default first', () => {
    expect(listBuiltinRuleVariants('terraform')).toEqual(['default', 'aws', 'azure', 'gcp']);
  });

  it('holds at least 40 distinct rule ids over all variants', () => {
    const ids = new Set(all.map((r) => r.rule_id));
    expect(ids.size).toBe(all.length);
    expect(ids.size).toBeGreaterThanOrEqual(40);
  });

  it('has a sensible number of rules per file', () => {
    expect(perVariant.get('default')!.length).toBeGreaterThanOrEqual(10);
    expect(perVariant.get('aws')!.length).toBeGreaterThanOrEqual(18);
    expect(perVariant.get('azure')!.length).toBeGreaterThanOrEqual(10);
    expect(perVariant.get('gcp')!.length).toBeGreaterThanOrEqual(10);
  });

  it('keeps rule ids unique within and across variant files', () => {
    for (const variant of TERRAFORM_VARIANTS) {
      const ids = sortedByKey(parseRules(loadBuiltinRuleset('terraform', variant)));
      expect(new Set(ids).size, variant).toBe(ids.length);
    }
    const seen = new Map<string, string>();
    for (const [variant, rules] of perVariant) {
      for (const rule of rules) {
        expect(seen.get(rule.rule_id), `${rule.rule_id} in ${variant}`).toBeUndefined();
        seen.set(rule.rule_id, variant);
      }
    }
  });

  for (const variant of TERRAFORM_VARIANTS) {
    it(`${variant}: every rule is complete`, () => {
      const rules = perVariant.get(variant)!;
      expect(rules.length).toBeGreaterThan(0);
      for (const rule of rules) {
        const where = `${variant}/${rule.rule_id}`;
        expect(rule.rule_id, where).toMatch(/^TF-[A-Z]+(-[A-Z0-9]+)+$/);
        expect(rule.rule_id.startsWith(ID_PREFIX[variant]), where).toBe(true);
        expect(rule.title.length, where).toBeGreaterThan(10);
        expect(SEVERITY_ORDER, where).toContain(rule.severity);
        expect(rule.applies_to.length, where).toBeGreaterThan(0);
        for (const type of rule.applies_to) expect(type, where).toMatch(/^(\*|[a-z][a-z0-9_]*)$/);
        expect(lookFor(rule.body).length, where).toBeGreaterThan(40);
        expect(examples(rule.body, 'hcl'), where).toEqual({ compliant: 1, nonCompliant: 1 });
        expect((rule.body.match(/^```hcl$/gm) ?? []).length, where).toBe(2);
      }
    });
  }

  it('provider rules name resource types of their own provider', () => {
    const providerOf: Record<string, string> = { aws: 'aws_', azure: 'azurerm_', gcp: 'google_' };
    for (const variant of ['aws', 'azure', 'gcp'] as const) {
      for (const rule of perVariant.get(variant)!) {
        const foreign = rule.applies_to.filter((t) => t !== 'module' && !t.startsWith(providerOf[variant]));
        expect(foreign, rule.rule_id).toEqual([]);
      }
    }
  });

  it('every file opens with a level-1 title and a preamble before the first rule', () => {
    for (const variant of TERRAFORM_VARIANTS) {
      const text =
        variant === 'default'
          ? loadBuiltinRuleset('terraform', 'default')
          : loadBuiltinRuleset('terraform', variant).slice(loadBuiltinRuleset('terraform', 'default').length);
      const beforeFirstRule = text.trimStart().split(/^## /m)[0];
      expect(beforeFirstRule, variant).toMatch(/^# \S.*\n\n\S/);
    }
  });
});

describe('built-in blackhole ruleset', () => {
  it('ships only a default variant', () => {
    expect(listBuiltinRuleVariants('blackhole')).toEqual(['default']);
  });

  it('holds at least six complete GEN- rules', () => {
    const rules = parseRules(loadBuiltinRuleset('blackhole', 'default'));
    expect(rules.length).toBeGreaterThanOrEqual(6);
    expect(new Set(rules.map((r) => r.rule_id)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.rule_id).toMatch(/^GEN-[A-Z0-9-]+$/);
      expect(SEVERITY_ORDER).toContain(rule.severity);
      expect(rule.applies_to.length, rule.rule_id).toBeGreaterThan(0);
      expect(lookFor(rule.body).length, rule.rule_id).toBeGreaterThan(40);
      expect(examples(rule.body, null), rule.rule_id).toEqual({ compliant: 1, nonCompliant: 1 });
    }
  });

  it('does not overlap terraform rule ids', () => {
    const gen = parseRules(loadBuiltinRuleset('blackhole', 'default')).map((r) => r.rule_id);
    const tf = new Set(TERRAFORM_VARIANTS.flatMap((v) => parseRules(loadBuiltinRuleset('terraform', v)).map((r) => r.rule_id)));
    expect(gen.filter((id) => tf.has(id))).toEqual([]);
  });
});

describe('loadBuiltinRuleset', () => {
  it('composes default first, then the variant', () => {
    const base = loadBuiltinRuleset('terraform', 'default');
    const aws = loadBuiltinRuleset('terraform', 'aws');
    expect(aws.startsWith(base)).toBe(true);
    expect(aws.slice(base.length)).toMatch(/^\n# Terraform: AWS rules\n/);
    const ids = parseRules(aws).map((r) => r.rule_id);
    const lastGen = ids.map((id) => id.startsWith('TF-GEN-')).lastIndexOf(true);
    const firstAws = ids.findIndex((id) => id.startsWith('TF-AWS-'));
    expect(lastGen).toBeLessThan(firstAws);
    expect(ids.some((id) => id.startsWith('TF-AZURE-') || id.startsWith('TF-GCP-'))).toBe(false);
  });

  it('returns default rules alone for the default variant', () => {
    const ids = parseRules(loadBuiltinRuleset('terraform', 'default')).map((r) => r.rule_id);
    expect(ids.every((id) => id.startsWith('TF-GEN-'))).toBe(true);
  });

  it('is byte-stable across calls and cache resets', () => {
    const first = loadBuiltinRuleset('terraform', 'gcp');
    const again = loadBuiltinRuleset('terraform', 'gcp');
    clearRulesetCache();
    const reread = loadBuiltinRuleset('terraform', 'gcp');
    expect(rulesetDigest(again)).toBe(rulesetDigest(first));
    expect(reread).toBe(first);
    expect(first.endsWith('\n')).toBe(true);
    expect(first.endsWith('\n\n')).toBe(false);
    expect(first).not.toContain('\r');
  });

  it('throws NotFoundError for an unknown variant or analyzer', () => {
    expect(() => loadBuiltinRuleset('terraform', 'oracle')).toThrow(NotFoundError);
    expect(() => loadBuiltinRuleset('blackhole', 'aws')).toThrow(NotFoundError);
    expect(() => loadBuiltinRuleset('no-such-analyzer', 'default')).toThrow(NotFoundError);
    try {
      loadBuiltinRuleset('terraform', 'oracle');
    } catch (err) {
      expect((err as NotFoundError).status).toBe(404);
    }
  });

  it('refuses names that are not plain path segments', () => {
    for (const [analyzer, variant] of [
      ['terraform', '../blackhole/default'],
      ['..', 'default'],
      ['terraform', 'aws.md'],
      ['terraform', ''],
      ['', 'default'],
      ['terraform/../blackhole', 'default'],
    ]) {
      expect(() => loadBuiltinRuleset(analyzer, variant), `${analyzer} ${variant}`).toThrow(NotFoundError);
    }
    expect(listBuiltinRuleVariants('../terraform')).toEqual([]);
  });

  it('lists no variants for an analyzer without rules', () => {
    expect(listBuiltinRuleVariants('no-such-analyzer')).toEqual([]);
  });
});

describe('PLANWARDEN_RESOURCES_DIR override', () => {
  let dir: string;
  const saved = process.env.PLANWARDEN_RESOURCES_DIR;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'planwarden-rules-'));
    mkdirSync(path.join(dir, 'rules', 'demo'), { recursive: true });
    mkdirSync(path.join(dir, 'rules', 'solo'), { recursive: true });
    writeFileSync(path.join(dir, 'rules', 'demo', 'default.md'), '\uFEFF# Demo\r\n\r\n## D-1: Base rule\r\nSeverity: LOW\r\n\r\n\r\n');
    writeFileSync(path.join(dir, 'rules', 'demo', 'extra.md'), '# Extra\n\n## D-2: Extra rule\n**Severity:** HIGH\n**Applies to:** `x_thing`, y_thing\n');
    writeFileSync(path.join(dir, 'rules', 'demo', 'notes.txt'), 'ignored');
    writeFileSync(path.join(dir, 'rules', 'solo', 'only.md'), '## S-1: Solo\nSeverity: INFO\n');
    process.env.PLANWARDEN_RESOURCES_DIR = dir;
  });

  afterEach(() => {
    if (saved === undefined) delete process.env.PLANWARDEN_RESOURCES_DIR;
    else process.env.PLANWARDEN_RESOURCES_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads rules from <dir>/rules and normalises BOM, CRLF and trailing blank lines', () => {
    expect(listBuiltinRuleVariants('demo')).toEqual(['default', 'extra']);
    expect(listBuiltinRuleVariants('terraform')).toEqual([]);
    expect(loadBuiltinRuleset('demo', 'default')).toBe('# Demo\n\n## D-1: Base rule\nSeverity: LOW\n');
    const extra = loadBuiltinRuleset('demo', 'extra');
    expect(extra).toBe('# Demo\n\n## D-1: Base rule\nSeverity: LOW\n\n# Extra\n\n## D-2: Extra rule\n**Severity:** HIGH\n**Applies to:** `x_thing`, y_thing\n');
    expect(parseRules(extra).map((r) => [r.rule_id, r.severity, r.applies_to])).toEqual([
      ['D-1', 'LOW', []],
      ['D-2', 'HIGH', ['x_thing', 'y_thing']],
    ]);
  });

  it('serves a variant alone when the analyzer has no default.md', () => {
    expect(loadBuiltinRuleset('solo', 'only')).toBe('## S-1: Solo\nSeverity: INFO\n');
    expect(() => loadBuiltinRuleset('solo', 'default')).toThrow(NotFoundError);
  });
});

describe('parseRules', () => {
  const md = [
    '# Title',
    '',
    'Preamble.',
    '',
    '## R-ONE: First rule',
    'Severity: high',
    'Applies to: a_type, `b_type`',
    '',
    'Look for:',
    '- something',
    '',
    '```hcl',
    '# an HCL comment, not a heading',
    '## R-FAKE: also a comment',
    '```',
    '',
    '### A sub-heading stays in the rule',
    '',
    '## Notes',
    'Not a rule.',
    '',
    '## R-TWO: Second rule ##',
    'Severity: INFO (informational)',
    '',
    '# Next top-level section',
    'Severity: CRITICAL',
  ].join('\n');

  it('splits rules at level-2 headings outside code fences', () => {
    const rules = parseRules(md);
    expect(rules.map((r) => r.rule_id)).toEqual(['R-ONE', 'R-TWO']);
    const [one, two] = rules;
    expect(one.title).toBe('First rule');
    expect(one.severity).toBe('HIGH');
    expect(one.applies_to).toEqual(['a_type', 'b_type']);
    expect(one.body.startsWith('## R-ONE: First rule\n')).toBe(true);
    expect(one.body).toContain('## R-FAKE: also a comment');
    expect(one.body.endsWith('### A sub-heading stays in the rule')).toBe(true);
    expect(two.title).toBe('Second rule');
    expect(two.severity).toBe('INFO');
    expect(two.body).toBe('## R-TWO: Second rule ##\nSeverity: INFO (informational)');
  });

  it('throws ValidationError when a rule has no valid severity', () => {
    expect(() => parseRules('## R-X: Broken\nSeverity: SEVERE\n')).toThrow(ValidationError);
    expect(() => parseRules('## R-Y: Missing\n\nLook for: x\n')).toThrow(ValidationError);
  });

  it('returns nothing for text without rules', () => {
    expect(parseRules('')).toEqual([]);
    expect(parseRules('# Only a title\n\nSome text.\n')).toEqual([]);
  });
});

describe('composeRuleset', () => {
  const builtin = loadBuiltinRuleset('terraform', 'aws');
  const sections: CustomRuleSection[] = [
    {
      category: 'network',
      rules: [
        { rule_id: 'ORG-NET-2', title: 'No public NAT', severity: 'LOW', description: 'Flag `aws_nat_gateway` in sandbox accounts.' },
        { rule_id: 'ORG-NET-1', title: 'Approved CIDRs only', severity: 'HIGH', description: 'Ingress only from 10.0.0.0/8.' },
      ],
    },
    {
      category: 'tagging',
      rules: [{ rule_id: 'ORG-TAG-1', title: 'Owner tag', severity: 'MEDIUM', description: 'Every resource needs `tags.owner`.' }],
    },
    {
      category: 'network',
      rules: [{ rule_id: 'ORG-NET-3', title: 'No peering', severity: 'MEDIUM', description: '' }],
    },
  ];

  it('appends custom rules after the built-ins, one heading per category', () => {
    const text = composeRuleset(builtin, sections);
    expect(text.startsWith(builtin)).toBe(true);
    const tail = text.slice(builtin.length);
    expect(tail.startsWith('\n# Custom rules: network\n\n## ORG-NET-1: Approved CIDRs only\nSeverity: HIGH\n\nIngress only from 10.0.0.0/8.\n')).toBe(true);
    expect(tail.match(/^# Custom rules: /gm)).toEqual(['# Custom rules: ', '# Custom rules: ']);
    expect(tail.indexOf('# Custom rules: network')).toBeLessThan(tail.indexOf('# Custom rules: tagging'));
    expect(tail.endsWith('## ORG-TAG-1: Owner tag\nSeverity: MEDIUM\n\nEvery resource needs `tags.owner`.\n')).toBe(true);

    const ids = parseRules(text).map((r) => r.rule_id);
    expect(ids.slice(-4)).toEqual(['ORG-NET-1', 'ORG-NET-2', 'ORG-NET-3', 'ORG-TAG-1']);
    expect(ids.slice(0, -4)).toEqual(parseRules(builtin).map((r) => r.rule_id));
    const custom = parseRules(text).find((r) => r.rule_id === 'ORG-NET-3')!;
    expect(custom).toEqual({
      rule_id: 'ORG-NET-3',
      title: 'No peering',
      severity: 'MEDIUM',
      applies_to: [],
      inputs: 'any',
      actions: [],
      check: null,
      body: '## ORG-NET-3: No peering\nSeverity: MEDIUM',
    });
  });

  it('returns the built-in text unchanged when there are no custom rules', () => {
    expect(composeRuleset(builtin, [])).toBe(builtin);
    expect(composeRuleset(builtin, [{ category: 'empty', rules: [] }])).toBe(builtin);
  });

  it('is byte-stable and independent of the order rows arrive in', () => {
    const a = composeRuleset(builtin, sections);
    const b = composeRuleset(builtin, sections);
    const shuffled = [...sections].reverse().map((s) => ({ ...s, rules: [...s.rules].reverse() }));
    expect(rulesetDigest(b)).toBe(rulesetDigest(a));
    expect(rulesetDigest(composeRuleset(builtin, shuffled))).toBe(rulesetDigest(a));
  });

  it('changes the digest when a custom rule is added or edited', () => {
    const before = rulesetDigest(composeRuleset(builtin, sections));
    const added = [
      ...sections,
      { category: 'tagging', rules: [{ rule_id: 'ORG-TAG-2', title: 'Cost centre tag', severity: 'LOW' as const, description: 'x' }] },
    ];
    expect(rulesetDigest(composeRuleset(builtin, added))).not.toBe(before);
    const edited = sections.map((s) => (s.category === 'tagging' ? { ...s, rules: [{ ...s.rules[0], severity: 'HIGH' as const }] } : s));
    expect(rulesetDigest(composeRuleset(builtin, edited))).not.toBe(before);
    expect(rulesetDigest(composeRuleset(builtin, []))).toBe(rulesetDigest(builtin));
  });

  it('keeps a description from opening new rules or categories', () => {
    const text = composeRuleset('# Base\n', [
      {
        category: 'misc\nwith newline',
        rules: [
          {
            rule_id: 'ORG-1',
            title: 'Multi\nline title',
            severity: 'LOW',
            description: '# Heading\r\n## ORG-FAKE: injected\r\nSeverity: CRITICAL\r\n\r\n```hcl\r\n# comment stays\r\n```\r\n',
          },
        ],
      },
    ]);
    expect(parseRules(text).map((r) => [r.rule_id, r.title, r.severity])).toEqual([['ORG-1', 'Multi line title', 'LOW']]);
    expect(text).toContain('# Custom rules: misc with newline\n');
    expect(text).toContain('### Heading\n#### ORG-FAKE: injected\n');
    expect(text).toContain('```hcl\n# comment stays\n```');
    expect(text).not.toContain('\r');
  });
});

describe('rulesetDigest', () => {
  it('is the hex SHA-256 of the exact UTF-8 text', () => {
    expect(rulesetDigest('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(rulesetDigest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(rulesetDigest('abc\n')).not.toBe(rulesetDigest('abc'));
    expect(rulesetDigest('é')).toBe(rulesetDigest('\u00e9'));
  });
});
