import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../core/diff';
import type { AnalysisUnit } from '../../core/unit';
import { terraformAnalyzer } from './index';
import { CORPUS } from '../../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');

/** path → units of every .tf file in a corpus diff. */
function tfUnits(rel: string): Record<string, AnalysisUnit[]> {
  const out: Record<string, AnalysisUnit[]> = {};
  for (const file of parseUnifiedDiff(read(rel))) {
    if (file.path.endsWith('.tf')) out[file.path] = terraformAnalyzer.ingestDiffFile!(file);
  }
  return out;
}
const summary = (units: AnalysisUnit[]): [string, string, string][] => units.map((u) => [u.name, u.type, u.action]);

describe('terraform blocks in corpus diffs (diff-tf)', () => {
  it('waf-log-policy-region: the data source spanning two hunks is one update unit', () => {
    const units = tfUnits('diff-tf/tf-aws-s3-bucket-9e8dd5e-waf-log-policy-region.diff');
    expect(summary(units['main.tf'])).toEqual([['data.aws_iam_policy_document.waf_log_delivery', 'aws_iam_policy_document', 'update']]);
    const body = units['main.tf'][0].body;
    expect(body.split('\n').slice(0, 5)).toEqual([
      '# file: main.tf',
      "# data.aws_iam_policy_document.waf_log_delivery (update, from a diff; '+' added, '-' removed)",
      '# partial: lines outside the diff hunks are not shown (...)',
      ' data "aws_iam_policy_document" "waf_log_delivery" {',
      ' ...',
    ]);
    expect(body.split('\n').filter((l) => l.startsWith('+'))).toHaveLength(2);
    expect(body).toContain('+      values   = ["arn:${data.aws_partition.current.partition}:logs:*:${data.aws_caller_identity.current.id}:*"]');
  });

  it('public-default-routes: both aws_route blocks, not the context-only neighbour', () => {
    const units = tfUnits('diff-tf/tf-aws-vpc-b3e7803-public-default-routes.diff');
    expect(summary(units['main.tf'])).toEqual([
      ['aws_route.public_internet_gateway', 'aws_route', 'update'],
      ['aws_route.public_internet_gateway_ipv6', 'aws_route', 'update'],
    ]);
    expect(units['main.tf'][1].body.split('\n').at(-1)).toBe(' }');
    expect(units['main.tf'][1].metadata.partial).toBe(false);
  });

  it('node-sg-rule-10251: the locals block holding the new rule', () => {
    const units = tfUnits('diff-tf/tf-aws-eks-de8c550d-node-sg-rule-10251.diff');
    expect(summary(units['node_groups.tf'])).toEqual([['locals', 'locals', 'update']]);
    expect(units['node_groups.tf'][0].body).toContain('+    ingress_cluster_10251_webhook = {');
    expect(units['node_groups.tf'][0].body).toContain('+      from_port                     = 10251');
  });

  it('pab-skip-destroy: one block per .tf file, README ignored', () => {
    const units = tfUnits('diff-tf/tf-aws-s3-bucket-8833269-pab-skip-destroy-readme.diff');
    expect(Object.keys(units)).toEqual(['main.tf', 'variables.tf', 'wrappers/main.tf']);
    expect(summary(units['main.tf'])).toEqual([['aws_s3_bucket_public_access_block.this', 'aws_s3_bucket_public_access_block', 'update']]);
    expect(summary(units['variables.tf'])).toEqual([['var.skip_destroy_public_access_block', 'variable', 'create']]);
    expect(summary(units['wrappers/main.tf'])).toEqual([['module.wrapper', 'module', 'update']]);
    expect(units['main.tf'][0].body).toContain('+  skip_destroy            = var.skip_destroy_public_access_block');
  });

  it('vpce-security-group: renamed security group is destroy + create; removed data source is destroy', () => {
    const units = tfUnits('diff-tf/tf-aws-vpc-802d5f1-vpce-security-group.diff');
    expect(summary(units['examples/complete/main.tf'])).toEqual([
      ['module.vpc_endpoints', 'module', 'update'],
      ['data.aws_iam_policy_document.dynamodb_endpoint_policy', 'aws_iam_policy_document', 'update'],
      ['aws_security_group.rds', 'aws_security_group', 'create'],
      ['data.aws_security_group.default', 'aws_security_group', 'destroy'],
      ['aws_security_group.vpc_tls', 'aws_security_group', 'destroy'],
    ]);
    const created = units['examples/complete/main.tf'][2].body;
    expect(created).toContain('+    from_port   = 5432');
    expect(created).not.toContain('443');
    const destroyed = units['examples/complete/main.tf'][4].body;
    expect(destroyed).toContain('-    from_port   = 443');
    expect(destroyed).not.toContain('5432');
    expect(summary(units['modules/vpc-endpoints/main.tf'])).toEqual([
      ['locals', 'locals', 'update'],
      ['data.aws_vpc_endpoint_service.this', 'aws_vpc_endpoint_service', 'update'],
      ['aws_vpc_endpoint.this', 'aws_vpc_endpoint', 'update'],
      ['aws_security_group.this', 'aws_security_group', 'create'],
      ['aws_security_group_rule.this', 'aws_security_group_rule', 'create'],
    ]);
    expect(summary(units['modules/vpc-endpoints/variables.tf']).map(([n]) => n)).toEqual([
      'var.create_security_group',
      'var.security_group_name',
      'var.security_group_name_prefix',
      'var.security_group_description',
      'var.security_group_rules',
      'var.security_group_tags',
    ]);
    expect(summary(units['modules/vpc-endpoints/outputs.tf']).map(([n]) => n)).toEqual(['output.security_group_arn', 'output.security_group_id']);
  });
});

describe('terraform blocks in corpus diffs (diff-mixed)', () => {
  it('karpenter: removed provider and kubectl_manifest resources, updated modules and helm release', () => {
    const units = tfUnits('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff');
    expect(summary(units['examples/karpenter/main.tf'])).toEqual([
      ['module.eks', 'module', 'update'],
      ['module.karpenter', 'module', 'update'],
      ['helm_release.karpenter', 'helm_release', 'update'],
      ['provider.kubectl', 'provider', 'destroy'],
      ['kubectl_manifest.karpenter_node_class', 'kubectl_manifest', 'destroy'],
      ['kubectl_manifest.karpenter_node_pool', 'kubectl_manifest', 'destroy'],
      ['kubectl_manifest.karpenter_example_deployment', 'kubectl_manifest', 'destroy'],
    ]);
    expect(summary(units['examples/karpenter/versions.tf'])).toEqual([['terraform', 'terraform', 'update']]);
    // A YAML heredoc with `${...}` interpolations does not break block boundaries.
    const nodePool = units['examples/karpenter/main.tf'][5].body.split('\n');
    expect(nodePool[2]).toBe('-resource "kubectl_manifest" "karpenter_node_pool" {');
    expect(nodePool.at(-1)).toBe('-}');
  });

  it('microservices-demo: no Terraform file at all', () => {
    expect(tfUnits('diff-mixed/msdemo-d91b7722f-cartservice-unprivileged-dockerfile-k8s.diff')).toEqual({});
  });
});

describe('terraform blocks in synthetic diffs', () => {
  const diff = (body: string): ReturnType<typeof parseUnifiedDiff>[number] => parseUnifiedDiff(body)[0];

  it('a deleted file gives destroy units; an added file create units', () => {
    const deleted = diff(
      [
        'diff --git a/s3.tf b/s3.tf',
        'deleted file mode 100644',
        '--- a/s3.tf',
        '+++ /dev/null',
        '@@ -1,3 +0,0 @@',
        '-resource "aws_s3_bucket" "b" {',
        '-  bucket = "x"',
        '-}',
        '',
      ].join('\n'),
    );
    expect(summary(terraformAnalyzer.ingestDiffFile!(deleted))).toEqual([['aws_s3_bucket.b', 'aws_s3_bucket', 'destroy']]);
    const added = diff(
      [
        'diff --git a/s3.tf b/s3.tf',
        'new file mode 100644',
        '--- /dev/null',
        '+++ b/s3.tf',
        '@@ -0,0 +1,4 @@',
        '+resource "aws_s3_bucket" "b" {',
        '+  policy = jsonencode({ a = "}" })',
        '+}',
        '+variable "v" {}',
        '',
      ].join('\n'),
    );
    expect(summary(terraformAnalyzer.ingestDiffFile!(added))).toEqual([
      ['aws_s3_bucket.b', 'aws_s3_bucket', 'create'],
      ['var.v', 'variable', 'create'],
    ]);
  });

  it('.tfvars assignments go to one fragment unit', () => {
    const file = diff(
      [
        'diff --git a/prod.tfvars b/prod.tfvars',
        '--- a/prod.tfvars',
        '+++ b/prod.tfvars',
        '@@ -1,2 +1,2 @@',
        ' region = "eu-west-1"',
        '-allowed_cidr = "10.0.0.0/8"',
        '+allowed_cidr = "0.0.0.0/0"',
        '',
      ].join('\n'),
    );
    const units = terraformAnalyzer.ingestDiffFile!(file);
    expect(summary(units)).toEqual([['prod.tfvars', 'tfvars', 'update']]);
    expect(units[0].body).toContain('+allowed_cidr = "0.0.0.0/0"');
  });

  it('a change inside a block with no usable hunk heading goes to the fragment unit', () => {
    const file = diff(
      [
        'diff --git a/main.tf b/main.tf',
        '--- a/main.tf',
        '+++ b/main.tf',
        '@@ -10,3 +10,3 @@',
        '   ingress {',
        '-    cidr_blocks = ["10.0.0.0/8"]',
        '+    cidr_blocks = ["0.0.0.0/0"]',
        '',
      ].join('\n'),
    );
    const units = terraformAnalyzer.ingestDiffFile!(file);
    expect(summary(units)).toEqual([['main.tf', 'hcl_fragment', 'update']]);
    expect(units[0].body).toContain('+    cidr_blocks = ["0.0.0.0/0"]');
  });

  it('comment-only changes outside blocks give no unit', () => {
    const file = diff(['diff --git a/main.tf b/main.tf', '--- a/main.tf', '+++ b/main.tf', '@@ -1,2 +1,2 @@', '-# old', '+# new', ' ', ''].join('\n'));
    expect(terraformAnalyzer.ingestDiffFile!(file)).toEqual([]);
  });

  it('hashes are stable across re-parsing', () => {
    const text = read('diff-tf/tf-aws-vpc-802d5f1-vpce-security-group.diff');
    const hashes = (): string[] =>
      parseUnifiedDiff(text)
        .filter((f) => f.path.endsWith('.tf'))
        .flatMap((f) => terraformAnalyzer.ingestDiffFile!(f).map((u) => u.hash));
    expect(hashes()).toEqual(hashes());
    expect(new Set(hashes()).size).toBe(hashes().length);
  });
});
