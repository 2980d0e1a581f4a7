import { describe, expect, it } from 'vitest';
import { terraformAnalyzer } from '../terraform/index';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { isCredentialKey, maskJsonStringSecrets, maskSecretShapes, maskTextSecrets, SECRET_MARKER } from './secrets';
import { planJsonUnits } from '../terraform/plan-json';

const AWS_KEY = ['AKIA', 'IOSFODNN7EXAMPLE'].join('');
const PEM = ['-----BEGIN RSA PRIVATE KEY-----', 'MIIEowIBAAKCAQEAx', '-----END RSA PRIVATE KEY-----'].join('\n');

describe('secret detectors', () => {
  it('recognises credential-named attributes and leaves look-alikes alone', () => {
    for (const k of [
      'password',
      'admin_password',
      'master_password',
      'client_secret',
      'auth_token',
      'private_key',
      'access_key',
      'secret_key',
      'DB_PASSWORD',
      'api_key',
    ])
      expect(isCredentialKey(k)).toBe(true);
    for (const k of ['password_data', 'get_password_data', 'secret_arn', 'kms_key_id', 'creation_token', 'public_key', 'token_ttl'])
      expect(isCredentialKey(k)).toBe(false);
  });

  it('masks credential-shaped strings, keeping the non-secret parts', () => {
    const text = `key ${AWS_KEY} url postgres://app:hunter22@db.internal:5432/x auth Bearer abcdefghijklmnopqrstuvwxyz012345 ${PEM}`;
    const masked = maskSecretShapes(text);
    expect(masked.text).not.toContain(AWS_KEY);
    expect(masked.text).not.toContain('hunter22');
    expect(masked.text).not.toContain('abcdefghijklmnop');
    expect(masked.text).not.toContain('MIIEowIBAAKCAQEAx');
    expect(masked.text).toContain(`postgres://app:${SECRET_MARKER}@db.internal:5432/x`);
    expect(masked.kinds).toEqual(expect.arrayContaining(['aws-access-key', 'url-password', 'bearer-token', 'private-key']));
  });

  it('masks credential-named shell assignments inside scripts, keeping references and other variables', () => {
    const script =
      '#!/bin/bash\nexport DB_PASSWORD=\'hunter2-prod\'\nAPI_TOKEN=abc123def\nexport REGION=eu-west-1\nDB_PASSWORD_REF=$DB_PASSWORD\nSECRET_KEY="${var.secret}"\ncurl https://x.example/?token=qwerty99';
    const masked = maskSecretShapes(script);
    expect(masked.text).not.toMatch(/hunter2-prod|abc123def|qwerty99/);
    expect(masked.text).toContain(`export DB_PASSWORD=${SECRET_MARKER}\n`);
    expect(masked.text).toContain('export REGION=eu-west-1');
    expect(masked.text).toContain('DB_PASSWORD_REF=$DB_PASSWORD');
    expect(masked.text).toContain('SECRET_KEY="${var.secret}"');
    expect(masked.kinds.filter((k) => k === 'credential-assignment')).toHaveLength(3);
  });

  it('masks literal credentials in text bodies but keeps references', () => {
    const body = ['  + admin_password = "P4ssw0rd!"', '  ~ password       = "old" -> "new"', '    password = var.db_password', '    token = ""'].join('\n');
    const { body: out, secrets } = maskTextSecrets(body);
    expect(out).not.toMatch(/P4ssw0rd|"old"|"new"/);
    expect(out).toContain('password = var.db_password');
    expect(out).toContain('token = ""');
    expect(secrets.map((s) => s.line)).toEqual([`+ admin_password = ${SECRET_MARKER}`, `~ password       = ${SECRET_MARKER} -> ${SECRET_MARKER}`]);
  });
});

describe('corpus plans after ingest', () => {
  const files = [...corpusFiles('tfplan-json', '.json'), ...corpusFiles('tfplan-text', '.txt')];
  it.each(files)('%s: no unit body holds a credential-shaped string', (file) => {
    const units = terraformAnalyzer.ingest!(
      corpusFile(file)
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
    );
    for (const unit of units) expect(maskSecretShapes(unit.body).kinds).toEqual([]);
  });

  it('the plaintext RDS password of the TF 0.14 plan is masked in body and hash input', () => {
    const units = terraformAnalyzer.ingest!(corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString('utf8'));
    expect(units.some((u) => u.body.includes('YourPwdShouldBeLongAndSecure!'))).toBe(false);
    expect(JSON.stringify(units)).not.toContain('YourPwdShouldBeLongAndSecure!');
    const dbs = units.filter((u) => u.type === 'aws_db_instance');
    expect(dbs.length).toBeGreaterThan(0);
    for (const db of dbs) {
      expect(db.body).toMatch(/password = \(sensitive value\)/);
      expect(db.metadata.plaintext_secrets).toEqual([expect.objectContaining({ attribute: 'password', kind: 'credential-attribute' })]);
    }
  });
});

describe('credentials inside JSON-encoded string attributes', () => {
  const CONTAINERS = JSON.stringify([
    {
      name: 'app',
      image: 'app:1',
      environment: [
        { name: 'DB_PASSWORD', value: 'hunter2' },
        { name: 'LOG_LEVEL', value: 'debug' },
      ],
      secrets: [{ name: 'API_TOKEN', valueFrom: 'arn:aws:ssm:eu-west-1:1:parameter/token' }],
    },
  ]);

  it('masks credential-named keys and {name, value} pairs, keeping the rest and the JSON shape', () => {
    const env = maskJsonStringSecrets('{"DB_PASSWORD":"hunter2","HOST":"db","nested":{"client_secret":"s3cr3t"}}');
    expect(JSON.parse(env.text)).toEqual({ DB_PASSWORD: SECRET_MARKER, HOST: 'db', nested: { client_secret: SECRET_MARKER } });
    expect(env.paths).toEqual([['DB_PASSWORD'], ['nested', 'client_secret']]);
    const defs = maskJsonStringSecrets(CONTAINERS);
    expect(defs.text).not.toContain('hunter2');
    expect(JSON.parse(defs.text)[0].environment).toEqual([
      { name: 'DB_PASSWORD', value: SECRET_MARKER },
      { name: 'LOG_LEVEL', value: 'debug' },
    ]);
    expect(JSON.parse(defs.text)[0].secrets[0].valueFrom).toContain('parameter/token'); // a reference, not the secret
    expect(maskJsonStringSecrets('{"password": "${var.p}"}').paths).toEqual([]);
    for (const text of ['not json', '{"HOST":"db"}', '{broken']) expect(maskJsonStringSecrets(text)).toEqual({ text, paths: [] });
  });

  it("a plan's container_definitions secret reaches neither the unit body, its values nor its hash input", () => {
    const change = { actions: ['create'], before: null, after: { family: 'app', container_definitions: CONTAINERS }, after_unknown: {}, after_sensitive: {} };
    const [unit] = planJsonUnits(
      {
        format_version: '1.2',
        resource_changes: [{ address: 'aws_ecs_task_definition.app', mode: 'managed', type: 'aws_ecs_task_definition', name: 'app', change }],
      },
      'terraform',
    );
    expect(JSON.stringify(unit)).not.toContain('hunter2');
    expect(unit.body).toContain('LOG_LEVEL');
    expect(unit.body).toContain(SECRET_MARKER);
    expect(unit.metadata.plaintext_secrets).toEqual([
      expect.objectContaining({ attribute: 'container_definitions[0].environment[0].value', kind: 'credential-attribute' }),
    ]);
  });
});
