/**
 * Plain-text secrets are masked in every analyzer, not only Terraform's: a Kubernetes env value
 * (the minio corpus manifest's `MINIO_SECRET_KEY: minio123`) and a `Secret`'s data, a Dockerfile
 * `ENV`, a workflow `env` literal and a CloudFormation property and `NoEcho` parameter default
 * reach neither the store (resources, findings), the Markdown report nor the model provider.
 */
import { describe, expect, it } from 'vitest';
import { corpusFile, waitForJob } from '../helpers/test-server';
import { useServerWithFakeProvider } from '../helpers/fake-server';

const SECRET_MANIFEST = ['apiVersion: v1', 'kind: Secret', 'metadata:', '  name: db', 'stringData:', '  url: mongodb-Xq7-literal-9', ''].join('\n');

const CASES: { analyzer: string; input: string; literals: string[] }[] = [
  {
    analyzer: 'kubernetes',
    input: `${corpusFile('k8s-yaml/k8s-examples-minio-standalone-latest.yaml').toString('utf8')}\n---\n${SECRET_MANIFEST}`,
    literals: ['minio123', 'mongodb-Xq7-literal-9'],
  },
  {
    analyzer: 'dockerfile',
    input: [
      'FROM alpine:3.20',
      'ENV DB_PASSWORD=hunter2-docker-env',
      'ENV API_TOKEN legacy-form-tok3n',
      'ARG NPM_TOKEN=npm-arg-literal-1',
      'CMD ["sh"]',
      '',
    ].join('\n'),
    literals: ['hunter2-docker-env', 'legacy-form-tok3n', 'npm-arg-literal-1'],
  },
  {
    analyzer: 'github-actions',
    input: [
      'on: push',
      'env:',
      '  DEPLOY_TOKEN: wf-level-literal-7',
      'jobs:',
      '  build:',
      '    runs-on: ubuntu-latest',
      '    env:',
      '      DB_PASSWORD: "job-level-literal-8"',
      '      GH_TOKEN: ${{ secrets.GH_TOKEN }}',
      '    steps:',
      '      - run: echo hi',
      '',
    ].join('\n'),
    literals: ['wf-level-literal-7', 'job-level-literal-8'],
  },
  {
    analyzer: 'cloudformation',
    input: [
      'Parameters:',
      '  DBPassword:',
      '    Type: String',
      '    NoEcho: true',
      '    Default: noecho-default-literal',
      'Resources:',
      '  Db:',
      '    Type: AWS::RDS::DBInstance',
      '    Properties:',
      '      Engine: postgres',
      '      MasterUserPassword: !Ref DBPassword',
      '  Db2:',
      '    Type: AWS::RDS::DBInstance',
      '    Properties:',
      '      Engine: postgres',
      '      MasterUserPassword: cfn-property-literal',
      '',
    ].join('\n'),
    literals: ['noecho-default-literal', 'cfn-property-literal'],
  },
];

const env = useServerWithFakeProvider();

describe('plain-text secrets are masked in every analyzer', () => {
  it.each(CASES)(
    '$analyzer: neither the resources, the findings, the report nor a provider request holds the literal',
    async ({ analyzer, input, literals }) => {
      for (const literal of literals) expect(input).toContain(literal);
      const ns = `secrets-${analyzer}`;
      const res = await env.server.api(`/${analyzer}/${ns}/analyze`, {
        method: 'POST',
        json: { llm_backend: 'ollama', model: 'llama3.1:8b', raw_input: input },
      });
      expect([200, 202]).toContain(res.status);
      const { job_id: jobId } = (await res.json()) as { job_id: string };
      await waitForJob(env.server, jobId);
      const stored = await (await env.server.api(`/${ns}/resources`)).text();
      expect(stored).toContain('(sensitive value)');
      const findings = await (await env.server.api(`/findings?namespace=${ns}`)).text();
      const report = await (await env.server.api(`/${ns}/report`)).text();
      expect(env.fake.requests.length).toBeGreaterThan(0);
      const requests = JSON.stringify(env.fake.requests);
      for (const literal of literals) {
        expect(stored, literal).not.toContain(literal);
        expect(findings, literal).not.toContain(literal);
        expect(report, literal).not.toContain(literal);
        expect(requests, literal).not.toContain(literal);
      }
    },
  );
});
