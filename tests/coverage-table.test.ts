/**
 * docs/coverage.md is generated (bench/coverage-table.ts) and must equal the generator's output,
 * so it cannot drift from the rules' `Applies to:` and `Maps to:` lines. A rule whose check can
 * never be true for a type it names on `Applies to:` fails, except the pairs recorded below:
 * there the check covers a subset of the rule's types and the model judges the others (listed as
 * "partial" in the document); fixing one means removing it here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  builtinRules,
  COVERAGE_DOC,
  coverageTable,
  peerCatalogue,
  peerCatalogues,
  peerEquivalents,
  peerReview,
  peerReviews,
  untestedTypes,
} from '../bench/coverage-table';

/** Rule id → the types its check never tests (judged by the model only). */
const PARTIAL: Record<string, readonly string[]> = {
  'CFN-LOGGING-DISABLED': ['AWS::ApiGateway::Stage', 'AWS::CloudFront::Distribution', 'AWS::EC2::VPC'],
  'CFN-STORAGE-UNENCRYPTED': ['AWS::DynamoDB::Table', 'AWS::EC2::LaunchTemplate', 'AWS::SNS::Topic', 'AWS::SQS::Queue'],
  'K8S-SERVICE-EXPOSED': ['Ingress'],
  'TF-AWS-EC2-IMDSV1-ALLOWED': ['aws_ec2_instance_metadata_defaults'],
  'TF-AWS-IAM-TRUST-WILDCARD': ['aws_iam_policy_document'],
  'TF-AWS-SG-ADMIN-PORTS-OPEN': ['aws_network_acl', 'aws_network_acl_rule'],
  'TF-AWS-VPC-FLOW-LOGS-OFF': ['module'],
  'TF-AZURE-PRIVILEGED-ROLE-AT-SUBSCRIPTION': ['azurerm_role_definition'],
  'TF-GCP-AUDIT-LOGGING-OFF': ['google_logging_project_bucket_config', 'google_logging_project_exclusion'],
  'TF-GCP-FIREWALL-ADMIN-PORTS-OPEN': ['google_compute_firewall_policy_rule', 'google_compute_network_firewall_policy_rule'],
  'TF-GCP-FIREWALL-ALL-PORTS-OPEN': ['google_compute_firewall_policy_rule', 'google_compute_network_firewall_policy_rule'],
  'TF-GCP-FIREWALL-DATA-PORTS-OPEN': ['google_compute_firewall_policy_rule', 'google_compute_network_firewall_policy_rule'],
  'TF-GCP-TLS-WEAK': ['google_compute_target_http_proxy', 'google_compute_target_https_proxy', 'google_compute_url_map'],
  'TF-GEN-BACKUP-DISABLED': ['azurerm_mssql_database', 'azurerm_mysql_flexible_server', 'azurerm_postgresql_flexible_server', 'google_sql_database_instance'],
  'TF-GEN-DELETION-PROTECTION-OFF': ['google_compute_instance', 'google_firestore_database'],
  'TF-GEN-KEY-ROTATION-DISABLED': ['azurerm_key_vault_key', 'google_kms_crypto_key'],
  'TF-GEN-VERSIONING-DISABLED': ['azurerm_storage_account'],
};

describe('docs/coverage.md', () => {
  const rules = builtinRules();

  it('equals the output of bench/coverage-table.ts (regenerate with `npx tsx bench/coverage-table.ts --write`)', () => {
    expect(readFileSync(COVERAGE_DOC, 'utf8')).toBe(coverageTable(rules));
  });

  it('has no rule naming a type its check never tests, beyond the recorded partial checks', () => {
    const untested = Object.fromEntries(rules.map(({ rule }) => [rule.rule_id, untestedTypes(rule).sort()]).filter(([, types]) => types.length > 0));
    expect(untested).toEqual(PARTIAL);
  });

  it('tests aws_launch_configuration in the EBS encryption and IMDS checks that name it', () => {
    for (const id of ['TF-AWS-EBS-ENCRYPTION-OFF', 'TF-AWS-EC2-IMDSV1-ALLOWED']) {
      const rule = rules.find((r) => r.rule.rule_id === id)!.rule;
      expect(rule.applies_to).toContain('aws_launch_configuration');
      expect(untestedTypes(rule)).not.toContain('aws_launch_configuration');
    }
  });

  it('maps Terraform rules only to Checkov, tfsec/Trivy and KICS Terraform checks of the catalogues, on a type the peer check names', () => {
    const catalogue = new Map([...peerCatalogue('checkov'), ...peerCatalogue('trivy'), ...peerCatalogue('kics')].map((c) => [c.id, c]));
    const terraformId = /^(CKV2?_(AWS|AZURE|GCP)_\d+|AVD-(AWS|AZU|GCP)-\d{4}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
    for (const { analyzer, rule, peers } of rules) {
      if (analyzer !== 'terraform') continue; // CloudFormation and Kubernetes checks are not in the Terraform catalogues
      for (const id of peers.filter((p) => terraformId.test(p))) {
        const check = catalogue.get(id);
        expect(check, `${rule.rule_id} maps to ${id}`).toBeDefined();
        expect(
          check!.types.some((t) => rule.applies_to.includes(t)),
          `${rule.rule_id} names none of ${id}'s types`,
        ).toBe(true);
      }
    }
  });

  it('reviews every Checkov check of at least 150 AWS, Azure and Google types', () => {
    const review = peerReview(rules, peerCatalogue());
    expect(review.types).toBeGreaterThanOrEqual(150);
    const s3 = review.rows.filter((r) => r.type === 'aws_s3_bucket');
    expect(s3.find((r) => r.id === 'CKV_AWS_144')).toMatchObject({ ours: 'TF-AWS-S3-REPLICATION-MISSING', status: 'covered' });
    expect(s3.find((r) => r.id === 'CKV_AWS_19')?.note).toMatch(/January 2023/);
  });

  it('pairs each tfsec/Trivy or KICS check only with a Checkov check of a resource type they share, each pair once', () => {
    const checkov = new Map(peerCatalogue('checkov').map((c) => [c.id, c]));
    const others = new Map([...peerCatalogue('trivy'), ...peerCatalogue('kics')].map((c) => [c.id, c]));
    const equivalents = peerEquivalents();
    expect(equivalents.size).toBeGreaterThan(100);
    for (const [id, same] of equivalents) {
      expect(others.get(id), id).toBeDefined();
      expect(new Set(same).size, `${id} paired twice with one check`).toBe(same.length);
      for (const c of same)
        expect(
          checkov.get(c)?.types.some((t) => others.get(id)!.types.includes(t)),
          `${id} ≡ ${c}`,
        ).toBe(true);
    }
  });

  it('reviews every tfsec/Trivy and KICS check of the Checkov-reviewed types, covered through a rule or its Checkov equivalent', () => {
    const reviews = peerReviews(rules, peerCatalogues());
    expect(reviews.trivy.types).toBe(reviews.checkov.types);
    expect(reviews.kics.types).toBe(reviews.checkov.types);
    expect(reviews.trivy.checks).toBeGreaterThan(200);
    expect(reviews.kics.checks).toBeGreaterThan(300);
    const row = (peer: 'trivy' | 'kics', type: string, id: string) => reviews[peer].rows.find((r) => r.type === type && r.id === id);
    expect(row('trivy', 'aws_s3_bucket', 'AVD-AWS-0089')).toMatchObject({ ours: 'TF-AWS-S3-ACCESS-LOGGING-MISSING', status: 'covered' });
    // covered through its Checkov equivalent, not listed on the rule's own line
    expect(row('trivy', 'aws_elasticsearch_domain', 'AVD-AWS-0048')).toMatchObject({
      ours: 'TF-AWS-SERVICE-ENCRYPTION-OFF',
      status: 'covered',
      note: 'same fact as CKV_AWS_5',
    });
    expect(row('kics', 'aws_s3_bucket', 'f861041c-8c9f-4156-acfc-5e6e524f5884')).toMatchObject({ ours: 'TF-AWS-S3-ACCESS-LOGGING-MISSING', status: 'covered' });
    expect(row('trivy', 'aws_lambda_function', 'AVD-AWS-0066')).toMatchObject({ status: 'covered', note: '' }); // listed on the rule's own Maps to line
    // an uncovered check with a recorded reason for its Checkov equivalent carries that reason
    expect(row('kics', 'aws_security_group', '4849211b-ac39-479e-ae78-5694d506cb24')?.note).toMatch(/^same fact as CKV2_AWS_5; hygiene: /);
  });

  it('covers a tfsec/Trivy check paired with two Checkov checks only when a rule covers both', () => {
    const catalogues = peerCatalogues();
    const sg = rules.find((r) => r.rule.rule_id === 'TF-AWS-SG-ADMIN-PORTS-OPEN')!;
    const withPeers = (peers: string[]) => [{ ...sg, peers }]; // this rule alone, so no other rule's ids interfere
    const status = (peers: string[]) =>
      peerReview(withPeers(peers), catalogues.trivy, { equivalents: catalogues.equivalents, types: new Set(['aws_security_group_rule']) }).rows.find(
        (r) => r.id === 'AVD-AWS-0107',
      )?.status;
    expect(status(['CKV_AWS_24', 'CKV_AWS_25'])).toBe('covered');
    expect(status(['CKV_AWS_24'])).toBe('partial');
    expect(status([])).toBe('none');
  });

  it('lists every rule that maps to a peer check id with that id', () => {
    const doc = readFileSync(COVERAGE_DOC, 'utf8');
    for (const { rule, peers } of rules) for (const id of peers) expect(doc, rule.rule_id).toContain(id);
    expect(doc).toContain('| `aws_launch_configuration` | CKV_AWS_79');
    expect(doc).toContain('## tfsec/Trivy checks of the same types');
    expect(doc).toContain('## KICS queries of the same types');
  });
});
