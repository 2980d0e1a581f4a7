import { describe, expect, it } from 'vitest';
import { parseUnifiedDiff } from '../../core/diff';
import { cloudformationAnalyzer } from '../cloudformation/index';
import { dockerfileAnalyzer } from '../dockerfile/index';
import { githubActionsAnalyzer } from '../github-actions/index';
import { kubernetesAnalyzer } from '../kubernetes/index';
import { maskUnitSecrets } from './mask-unit';
import { SECRET_MARKER } from './secrets';

const POD = [
  'apiVersion: v1',
  'kind: Pod',
  'metadata:',
  '  name: db',
  'spec:',
  '  containers:',
  '    - name: mysql',
  '      image: mysql:8.0',
  '      env:',
  '        - name: MYSQL_ROOT_PASSWORD',
  '          value: "supersecret"',
  '        - name: MYSQL_USER',
  '          value: admin',
  '        - name: DB_PASSWORD',
  '          value: DB_PASSWORD',
  '        - name: API_KEY',
  '          valueFrom:',
  '            secretKeyRef: {name: api, key: key}',
  '        - {name: SHORT_TOKEN, value: "x1"}',
].join('\n');

describe('secret masking of whole-file analyzers', () => {
  it('a Pod env value under a credential name is masked in the body, the values and the evidence; plain names, placeholders and references stay', () => {
    const [unit] = kubernetesAnalyzer.ingest!(POD);
    const text = JSON.stringify(unit);
    expect(text).not.toContain('supersecret');
    expect(unit.body).toContain(`value: ${SECRET_MARKER}`);
    expect(unit.body).toContain('value: admin');
    expect(unit.body).toContain('value: DB_PASSWORD'); // a placeholder equal to its own name
    expect(unit.body).toContain('secretKeyRef');
    expect(unit.body).toContain(`{name: SHORT_TOKEN, value: ${SECRET_MARKER}}`);
    const env = (unit.metadata.values as { spec: { containers: { env: { name: string; value?: string }[] }[] } }).spec.containers[0].env;
    expect(env.map((e) => e.value)).toEqual([SECRET_MARKER, 'admin', 'DB_PASSWORD', undefined, SECRET_MARKER]);
    expect(unit.metadata.plaintext_secrets).toEqual([
      expect.objectContaining({ kind: 'credential-attribute', line: `value: ${SECRET_MARKER}` }),
      expect.objectContaining({ kind: 'credential-attribute', line: `- {name: SHORT_TOKEN, value: ${SECRET_MARKER}}` }),
    ]);
  });

  it("masks every value of a Secret's data and stringData and credential-named ConfigMap keys, not the other keys", () => {
    const units = kubernetesAnalyzer.ingest!(
      [
        'apiVersion: v1',
        'kind: Secret',
        'metadata: {name: s}',
        'data:',
        '  tls.key: bXktdGxzLWtleQ==',
        'stringData:',
        '  config: plain-but-secret',
        '---',
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata: {name: c}',
        'data:',
        '  LOG_LEVEL: debug',
        '  REDIS_PASSWORD: redis-literal-1',
      ].join('\n'),
    );
    const text = JSON.stringify(units);
    for (const literal of ['bXktdGxzLWtleQ==', 'plain-but-secret', 'redis-literal-1']) expect(text).not.toContain(literal);
    expect(units[1].body).toContain('LOG_LEVEL: debug');
  });

  it('masks Dockerfile ENV and ARG literals (both ENV forms) and keeps build-arg references', () => {
    const [unit] = dockerfileAnalyzer.ingest!(
      ['FROM alpine', 'ARG GH_TOKEN', 'ENV DB_PASSWORD=pa55-word-1 MODE=prod', 'ENV API_SECRET legacy value 2', 'ENV TOKEN=$GH_TOKEN', ''].join('\n'),
    );
    expect(unit.body).not.toContain('pa55-word-1');
    expect(unit.body).not.toContain('legacy value 2');
    expect(unit.body).toContain('MODE=prod');
    expect(unit.body).toContain('ENV TOKEN=$GH_TOKEN');
    expect(JSON.stringify(unit.metadata)).not.toMatch(/pa55-word-1|legacy value 2/);
  });

  it('masks workflow env literals at every level and keeps ${{ secrets.X }} and the id-token permission', () => {
    const [unit] = githubActionsAnalyzer.ingest!(
      [
        'on: push',
        'permissions:',
        '  id-token: write',
        'env:',
        '  NPM_TOKEN: npm-literal-9',
        'jobs:',
        '  b:',
        '    runs-on: x',
        '    steps:',
        '      - run: echo',
        '        env:',
        '          API_KEY: step-literal-3',
        '          GH_TOKEN: ${{ secrets.GH }}',
      ].join('\n'),
    );
    expect(JSON.stringify(unit)).not.toMatch(/npm-literal-9|step-literal-3/);
    expect(unit.body).toContain('id-token: write');
    expect(unit.body).toContain('GH_TOKEN: ${{ secrets.GH }}');
  });

  it('masks CloudFormation credential properties and keeps dynamic references and !Ref', () => {
    const units = cloudformationAnalyzer.ingest!(
      [
        'Resources:',
        '  A:',
        '    Type: AWS::RDS::DBInstance',
        '    Properties:',
        '      MasterUserPassword: cfn-literal-4',
        '  B:',
        '    Type: AWS::RDS::DBInstance',
        '    Properties:',
        "      MasterUserPassword: '{{resolve:secretsmanager:db}}'",
        '  C:',
        '    Type: AWS::RDS::DBInstance',
        '    Properties:',
        '      MasterUserPassword: !Ref Pw',
      ].join('\n'),
    );
    expect(JSON.stringify(units)).not.toContain('cfn-literal-4');
    expect(units[1].body).toContain('{{resolve:secretsmanager:db}}');
    expect(units[2].body).toContain('!Ref Pw');
    expect(units.map((u) => (u.metadata.plaintext_secrets as unknown[] | undefined)?.length ?? 0)).toEqual([1, 0, 0]);
  });

  it('keeps the JSON shape of a JSON template line it masks', () => {
    const template = JSON.stringify(
      { Resources: { Db: { Type: 'AWS::RDS::DBInstance', Properties: { MasterUserPassword: 'json-literal-5', Engine: 'postgres' } } } },
      null,
      2,
    );
    const [unit] = cloudformationAnalyzer.ingest!(template);
    expect(unit.body).toContain(`"MasterUserPassword": ${SECRET_MARKER},`);
    expect(unit.body).not.toContain('json-literal-5');
  });

  it('a short literal is masked only near its key, a long one wherever it stands as a whole token', () => {
    const masked = maskUnitSecrets(['token: "no"', 'a: 1', 'b: 2', 'c: 3', 'd: 4', 'answer: no', 'x: hunter22', 'nothunter22: 1'].join('\n'), {
      token: 'no',
      pw: { password: 'hunter22' },
    });
    expect(masked.body.split('\n')).toEqual([`token: ${SECRET_MARKER}`, 'a: 1', 'b: 2', 'c: 3', 'd: 4', 'answer: no', `x: ${SECRET_MARKER}`, 'nothunter22: 1']);
    expect(masked.values).toEqual({ token: SECRET_MARKER, pw: { password: SECRET_MARKER } });
  });

  it('masks the hunks of a modified manifest, which cannot be parsed: env pairs and credential keys on the text alone', () => {
    const diff = [
      'diff --git a/k8s/db.yaml b/k8s/db.yaml',
      '--- a/k8s/db.yaml',
      '+++ b/k8s/db.yaml',
      '@@ -10,4 +10,6 @@ spec:',
      '         env:',
      '         - name: MYSQL_ROOT_PASSWORD',
      '-          value: "old-root-pass"',
      '+          value: "new-root-pass"',
      '+        - name: LOG_LEVEL',
      '+          value: debug',
      '           redisPassword: hunter2-bare',
      '',
    ].join('\n');
    const [unit] = kubernetesAnalyzer.ingestDiffFile!(parseUnifiedDiff(diff)[0]);
    expect(unit.type).toBe('kubernetes_manifest_change');
    expect(unit.body).not.toMatch(/old-root-pass|new-root-pass|hunter2-bare/);
    expect(unit.body).toContain('value: debug');
    expect((unit.metadata.plaintext_secrets as unknown[]).length).toBe(3);
  });
});
