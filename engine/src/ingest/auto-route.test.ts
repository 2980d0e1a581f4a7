import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors';
import { createAnalyzerRegistry } from '../analyzers/registry';
import type { Analyzer } from '../core/unit';
import { autoRoute, MAX_GLOB_PATH_LENGTH, REASON_DISABLED, REASON_UNRECOGNISED } from './auto-route';
import { CORPUS } from '../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');
const DIFFS = ['diff-tf', 'diff-mixed'].flatMap((dir) =>
  readdirSync(fileURLToPath(new URL(`${dir}/`, CORPUS)))
    .filter((f) => f.endsWith('.diff'))
    .map((f) => `${dir}/${f}`),
);
const analyzers = createAnalyzerRegistry().list();
const all = (): boolean => true;
const except =
  (...names: string[]) =>
  (name: string): boolean =>
    !names.includes(name);

/** The analyzer a corpus diff file belongs to, judged by a reader from its path and content. */
const EXPECTED_ANALYZER: readonly [RegExp, string][] = [
  [/\.tf$/, 'terraform'],
  [/(^|\/)Dockerfile$/, 'dockerfile'],
  [/^kubernetes-manifests\/|^examples\/karpenter\/.*\.yaml$/, 'kubernetes'],
];

describe('autoRoute: corpus diffs', () => {
  it.each(DIFFS)('%s → one detection per diff file, each to its analyzer, the rest to the fallback', (rel) => {
    const text = read(rel);
    const paths = text
      .split('\n')
      .filter((l) => l.startsWith('diff --git '))
      .map((l) => l.split(' b/')[1]);
    const result = autoRoute(text, analyzers, all);
    expect(result.detections.map((d) => d.path)).toEqual(paths);
    for (const d of result.detections) {
      const expected = EXPECTED_ANALYZER.find(([re]) => re.test(d.path))?.[1];
      if (expected) expect(d).toMatchObject({ path: d.path, analyzer: expected, reason: null, fallback: false });
      else expect(d).toMatchObject({ analyzer: 'blackhole', fallback: true, reason: REASON_UNRECOGNISED, confidence: 0.1 });
    }
    for (const unit of result.units) expect(result.analyzers_used).toContain(unit.metadata.analyzer);
    expect(new Set(result.units.map((u) => u.hash)).size).toBe(result.units.length);
    expect(autoRoute(text, analyzers, all).units.map((u) => u.hash)).toEqual(result.units.map((u) => u.hash));
  });

  it('karpenter diff: detections, kinds, units and analyzers_used', () => {
    const result = autoRoute(read('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'), analyzers, all);
    expect(result.detections.map((d) => [d.path, d.detected_kind, d.analyzer])).toEqual([
      ['examples/karpenter/README.md', 'markdown', 'blackhole'],
      ['examples/karpenter/inflate.yaml', 'kubernetes-manifest', 'kubernetes'],
      ['examples/karpenter/karpenter.yaml', 'kubernetes-manifest', 'kubernetes'],
      ['examples/karpenter/main.tf', 'terraform', 'terraform'],
      ['examples/karpenter/versions.tf', 'terraform', 'terraform'],
    ]);
    expect(result.analyzers_used).toEqual(['blackhole', 'kubernetes', 'terraform']);
    expect(result.units.filter((u) => u.metadata.analyzer === 'kubernetes').map((u) => [u.name, u.action])).toEqual([
      ['Deployment/inflate', 'create'],
      ['EC2NodeClass/default', 'create'],
      ['NodePool/default', 'create'],
    ]);
    const tfNames = result.units.filter((u) => u.metadata.analyzer === 'terraform').map((u) => u.name);
    expect(tfNames).toContain('kubectl_manifest.karpenter_node_pool');
    expect(tfNames).toContain('terraform');
  });

  it('a disabled terraform analyzer: the fallback takes .tf files and the reason is kept', () => {
    const result = autoRoute(read('diff-tf/tf-aws-s3-bucket-8833269-pab-skip-destroy-readme.diff'), analyzers, except('terraform'));
    const main = result.detections.find((d) => d.path === 'main.tf')!;
    expect(main).toEqual({ path: 'main.tf', detected_kind: 'terraform', analyzer: 'blackhole', confidence: 0.1, reason: REASON_DISABLED, fallback: true });
    expect(result.analyzers_used).toEqual(['blackhole']);
    expect(result.units.every((u) => u.metadata.analyzer === 'blackhole')).toBe(true);
  });

  it('a custom disabled reason (paid plan) is reported, and in the 422 when nothing else can take the file', () => {
    const text = read('diff-tf/tf-aws-vpc-b3e7803-public-default-routes.diff');
    const disabledReason = (name: string): string | undefined => (name === 'terraform' ? 'a paid plan required' : undefined);
    const result = autoRoute(text, analyzers, except('terraform'), { disabledReason });
    expect(result.detections).toEqual([
      { path: 'main.tf', detected_kind: 'terraform', analyzer: 'blackhole', confidence: 0.1, reason: 'a paid plan required', fallback: true },
    ]);
    expect(() => autoRoute(text, analyzers, except('terraform', 'blackhole'), { disabledReason })).toThrow(/a paid plan required/);
  });

  it('without an enabled fallback, unmatched files get analyzer null and matched files still route', () => {
    const result = autoRoute(read('diff-tf/tf-aws-s3-bucket-8833269-pab-skip-destroy-readme.diff'), analyzers, except('blackhole'));
    expect(result.detections[0]).toEqual({
      path: 'README.md',
      detected_kind: 'markdown',
      analyzer: null,
      confidence: 0,
      reason: REASON_UNRECOGNISED,
      fallback: false,
    });
    expect(result.detections.slice(1).every((d) => d.analyzer === 'terraform')).toBe(true);
    expect(result.analyzers_used).toEqual(['terraform']);
  });

  it('nothing matched and no enabled fallback → ValidationError', () => {
    const text = read('diff-mixed/msdemo-d91b7722f-cartservice-unprivileged-dockerfile-k8s.diff');
    expect(() => autoRoute(text, analyzers, except('blackhole', 'kubernetes', 'dockerfile'))).toThrow(ValidationError);
    expect(() => autoRoute(read('diff-tf/tf-aws-vpc-b3e7803-public-default-routes.diff'), analyzers, () => false)).toThrow(/analyzer disabled for the org/);
  });

  it('a deleted file still gets a detection and destroy units', () => {
    const text = [
      'diff --git a/old.tf b/old.tf',
      'deleted file mode 100644',
      '--- a/old.tf',
      '+++ /dev/null',
      '@@ -1,3 +0,0 @@',
      '-resource "aws_iam_user" "u" {',
      '-  name = "u"',
      '-}',
      'diff --git a/notes.md b/notes.md',
      'deleted file mode 100644',
      '--- a/notes.md',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    const result = autoRoute(text, analyzers, all);
    expect(result.detections.map((d) => [d.path, d.analyzer])).toEqual([
      ['old.tf', 'terraform'],
      ['notes.md', 'blackhole'],
    ]);
    expect(result.units.map((u) => [u.name, u.action])).toEqual([
      ['aws_iam_user.u', 'destroy'],
      ['notes.md', 'destroy'],
    ]);
  });
});

describe('autoRoute: globs and sniffing of diff files', () => {
  const added = (path: string, lines: string[]): string =>
    [
      `diff --git a/${path} b/${path}`,
      'new file mode 100644',
      '--- /dev/null',
      `+++ b/${path}`,
      `@@ -0,0 +1,${lines.length} @@`,
      ...lines.map((l) => `+${l}`),
      '',
    ].join('\n');

  it('matches globs naming a directory, and claims oddly named files by content (opt-in analyzers only)', () => {
    const text = [
      added('deploy/k8s/web.yml', ['apiVersion: v1', 'kind: Service', 'metadata:', '  name: web']),
      added('ops/app.conf', ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: p', 'spec:', '  hostNetwork: true']),
      added('build/web.containerfile.txt', ['FROM node:20', 'USER node']),
      added('docs/README.md', ['# Example', '', 'resource "aws_s3_bucket" "b" {', '}']),
    ].join('');
    const result = autoRoute(text, analyzers, all);
    expect(result.detections.map((d) => [d.path, d.analyzer, d.confidence])).toEqual([
      ['deploy/k8s/web.yml', 'kubernetes', 1],
      ['ops/app.conf', 'kubernetes', 0.9],
      ['build/web.containerfile.txt', 'dockerfile', 0.85],
      ['docs/README.md', 'blackhole', 0.1],
    ]);
  });

  it('tries no glob on a path longer than PATH_MAX (an author-chosen path must not stall routing), and still routes it by content', () => {
    const deep = `${'k8s/'.repeat(20_000)}web.yml`;
    const manifest = ['apiVersion: v1', 'kind: Pod', 'metadata:', '  name: p', 'spec:', '  hostNetwork: true'];
    const result = autoRoute(added(deep, manifest), analyzers, all);
    expect(deep.length).toBeGreaterThan(MAX_GLOB_PATH_LENGTH);
    expect(result.detections.map((d) => [d.analyzer, d.confidence])).toEqual([['kubernetes', 0.9]]);
  });
});

describe('autoRoute: blobs', () => {
  it('routes a plan JSON blob by sniffing', () => {
    const result = autoRoute(read('tfplan-json/infracost-azure-firewall.json'), analyzers, all);
    expect(result.detections).toEqual([
      { path: 'input', detected_kind: 'terraform-plan-json', analyzer: 'terraform', confidence: 0.95, reason: null, fallback: false },
    ]);
    expect(result.units).toHaveLength(11);
    expect(result.units.every((u) => u.metadata.analyzer === 'terraform')).toBe(true);
  });

  it('routes plan text and decodes a UTF-16 blob', () => {
    expect(autoRoute(read('tfplan-text/lifeomic-tf011-crlf-ansi.txt'), analyzers, all).detections[0].detected_kind).toBe('terraform-plan-text');
    const utf16 = readFileSync(fileURLToPath(new URL('tfplan-json/checkov-aws-utf16le-bom-windows.json', CORPUS))).toString('latin1');
    expect(autoRoute(utf16, analyzers, all).units.map((u) => u.name)).toEqual(['aws_s3_bucket.data']);
  });

  it('gives an unrecognised blob to the fallback, with the path when known', () => {
    const result = autoRoute('replicaCount: 3\nimage:\n  tag: latest\n', analyzers, all, { path: 'values.yaml' });
    expect(result.detections).toEqual([
      { path: 'values.yaml', detected_kind: 'yaml', analyzer: 'blackhole', confidence: 0.1, reason: REASON_UNRECOGNISED, fallback: true },
    ]);
    expect(result.units.map((u) => [u.name, u.metadata.analyzer])).toEqual([['values.yaml', 'blackhole']]);
  });

  it.each([
    ['k8s-yaml/k8s-examples-minio-standalone-latest.yaml', 'kubernetes', 'kubernetes-manifest'],
    ['dockerfile/msdemo-frontend.Dockerfile', 'dockerfile', 'dockerfile'],
    ['gha-workflow/checkov-security-pull-request-target.yml', 'github-actions', 'github-actions-workflow'],
    ['cfn-template/awslabs-static-website-s3buckets.json', 'cloudformation', 'cloudformation-template'],
  ])('sniffs a %s blob to %s', (rel, analyzer, kind) => {
    const result = autoRoute(read(rel), analyzers, all, { path: 'oddly-named.txt' });
    expect(result.detections[0]).toMatchObject({ analyzer, detected_kind: kind, fallback: false });
    const off = autoRoute(read(rel), analyzers, except(analyzer));
    expect(off.detections[0]).toMatchObject({ analyzer: 'blackhole', reason: REASON_DISABLED, fallback: true });
  });

  it('falls back when the sniffed analyzer rejects the input (truncated plan)', () => {
    const truncated = read('tfplan-json/terraform-showjson-drift.json').slice(0, 2000);
    const result = autoRoute(truncated, analyzers, all);
    expect(result.detections[0]).toMatchObject({ analyzer: 'blackhole', fallback: true, detected_kind: 'terraform-plan-json' });
    expect(result.detections[0].reason).toMatch(/^unrecognised content \(terraform: /);
    expect(() => autoRoute(truncated, analyzers, except('blackhole'))).toThrow(ValidationError);
  });

  it('picks the highest-confidence enabled sniffer', () => {
    const eager: Analyzer = {
      name: 'eager',
      description: '',
      version: '1',
      fileGlobs: [],
      defaultRuleVariant: null,
      sniff: () => ({ kind: 'eager-kind', confidence: 0.99 }),
      ingest: () => [],
    };
    const withEager = createAnalyzerRegistry([...analyzers, eager]).list();
    const plan = read('tfplan-json/terraform-showjson-drift.json');
    expect(autoRoute(plan, withEager, all).detections[0].analyzer).toBe('eager');
    expect(autoRoute(plan, withEager, except('eager')).detections[0].analyzer).toBe('terraform');
  });

  it('rejects random text when no fallback is enabled, and an empty body always', () => {
    expect(() => autoRoute('lorem ipsum dolor sit amet', analyzers, except('blackhole'))).toThrow(ValidationError);
    expect(() => autoRoute('   ', analyzers, all)).toThrow(ValidationError);
  });
});
