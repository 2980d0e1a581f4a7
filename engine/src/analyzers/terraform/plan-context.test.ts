import { describe, expect, it } from 'vitest';
import { corpusFile } from '../../../../tests/corpus';
import type { AnalysisUnit } from '../../core/unit';
import { terraformAnalyzer } from './index';
import { planJsonUnits } from './plan-json';
import type { Companion } from './plan-context';

type Json = Record<string, unknown>;

/** One resource change; module path and instance key are read from the address. */
function rc(address: string, after: Json | null, options: { actions?: string[]; unknown?: Json; sensitive?: Json; before?: Json | null } = {}): Json {
  const m = /^((?:module\.[\w-]+(?:\[[^\]]+\])?\.)*)([\w-]+)\.([\w-]+)(?:\[(\d+|"[^"]*")\])?$/.exec(address)!;
  const index = m[4] === undefined ? undefined : m[4].startsWith('"') ? (JSON.parse(m[4]) as string) : Number(m[4]);
  return {
    address,
    mode: 'managed',
    type: m[2],
    name: m[3],
    ...(m[1] ? { module_address: m[1].slice(0, -1) } : {}),
    ...(index === undefined ? {} : { index }),
    change: {
      actions: options.actions ?? ['create'],
      before: options.before ?? null,
      after,
      after_unknown: options.unknown ?? {},
      before_sensitive: false,
      after_sensitive: options.sensitive ?? {},
    },
  };
}

const refs = (...references: string[]) => ({ references });
const resource = (type: string, name: string, expressions: Json) => ({ address: `${type}.${name}`, mode: 'managed', type, name, expressions });
const plan = (changes: Json[], rootModule?: Json): Json => ({
  format_version: '1.2',
  resource_changes: changes,
  ...(rootModule ? { configuration: { root_module: rootModule } } : {}),
});
const units = (p: Json): AnalysisUnit[] => planJsonUnits(p, 'terraform');
const unit = (list: AnalysisUnit[], name: string): AnalysisUnit => list.find((u) => u.name === name)!;
const context = (u: AnalysisUnit): Companion[] => u.metadata.context as Companion[];
const addresses = (u: AnalysisUnit): string[] => context(u).map((c) => c.address);

const BUCKET = rc('aws_s3_bucket.b', { bucket: 'logs-x', force_destroy: false }, { unknown: { id: true, arn: true } });
const byRef = (type: string, name: string, after: Json = {}, options: Parameters<typeof rc>[2] = {}) =>
  rc(`${type}.${name}`, after, { unknown: { bucket: true, id: true }, ...options });
const CONFIG = {
  resources: [
    resource('aws_s3_bucket', 'b', { bucket: { constant_value: 'logs-x' } }),
    ...['aws_s3_bucket_public_access_block', 'aws_s3_bucket_versioning', 'aws_s3_bucket_server_side_encryption_configuration'].map((t) =>
      resource(t, 'b', { bucket: refs('aws_s3_bucket.b.id', 'aws_s3_bucket.b') }),
    ),
  ],
};

describe('plan context: companions found through configuration references', () => {
  const list = units(
    plan(
      [
        BUCKET,
        byRef('aws_s3_bucket_versioning', 'b', { versioning_configuration: [{ status: 'Enabled' }] }),
        byRef('aws_s3_bucket_public_access_block', 'b', { block_public_acls: true, block_public_policy: true }),
        byRef(
          'aws_s3_bucket_server_side_encryption_configuration',
          'b',
          { rule: [{ apply_server_side_encryption_by_default: [{ kms_master_key_id: 'arn:aws:kms:key/secret-id', sse_algorithm: 'aws:kms' }] }] },
          { sensitive: { rule: [{ apply_server_side_encryption_by_default: [{ kms_master_key_id: true }] }] } },
        ),
        rc('aws_s3_bucket.other', { bucket: 'other' }),
      ],
      CONFIG,
    ),
  );

  it("lists the bucket's companions in table order with their action and masked planned values", () => {
    const bucket = unit(list, 'aws_s3_bucket.b');
    expect(addresses(bucket)).toEqual([
      'aws_s3_bucket_public_access_block.b',
      'aws_s3_bucket_server_side_encryption_configuration.b',
      'aws_s3_bucket_versioning.b',
    ]);
    expect(context(bucket)[0]).toEqual({
      address: 'aws_s3_bucket_public_access_block.b',
      type: 'aws_s3_bucket_public_access_block',
      action: 'create',
      values: { block_public_acls: true, block_public_policy: true, bucket: '(known after apply)', id: '(known after apply)' },
    });
    expect(JSON.stringify(bucket.metadata)).not.toContain('secret-id'); // masked as in the companion's own unit
    expect(JSON.stringify(context(bucket)[1].values)).toContain('(sensitive value)');
    expect(bucket.metadata.context_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('gives units without companions an empty list and no digest, and leaves every unit hash as it was', () => {
    const other = unit(list, 'aws_s3_bucket.other');
    expect(other.metadata.context).toEqual([]);
    expect(other.metadata).not.toHaveProperty('context_digest');
    expect(unit(list, 'aws_s3_bucket_public_access_block.b').metadata.context).toEqual([]);
    const alone = units(plan([BUCKET]));
    expect(unit(list, 'aws_s3_bucket.b').hash).toBe(alone[0].hash);
    expect(alone[0].metadata.context).toEqual([]);
  });

  it('is structured-clone safe (the ingest worker posts units across threads)', () => {
    expect(structuredClone(list)).toEqual(list);
  });

  it('digest: the same companions give the same digest in any plan order; a weakened companion changes it', () => {
    const digestOf = (changes: Json[]) => unit(units(plan(changes, CONFIG)), 'aws_s3_bucket.b').metadata.context_digest;
    const pab = (acls: boolean) => byRef('aws_s3_bucket_public_access_block', 'b', { block_public_acls: acls });
    expect(digestOf([BUCKET, pab(true)])).toBe(digestOf([pab(true), BUCKET]));
    expect(digestOf([BUCKET, pab(false)])).not.toBe(digestOf([BUCKET, pab(true)]));
  });

  it('a companion being destroyed is listed with action destroy and no planned values', () => {
    const gone = rc('aws_s3_bucket_public_access_block.b', null, { actions: ['delete'], before: { bucket: 'logs-x', block_public_acls: true } });
    expect(context(unit(units(plan([BUCKET, gone], CONFIG)), 'aws_s3_bucket.b'))).toEqual([
      { address: 'aws_s3_bucket_public_access_block.b', type: 'aws_s3_bucket_public_access_block', action: 'destroy', values: null },
    ]);
  });
});

describe('plan context: modules, count and the value fallback', () => {
  it('resolves a module output (`module.store.bucket_id`) to the bucket inside the module', () => {
    const list = units(
      plan([rc('module.store.aws_s3_bucket.this', { bucket: 'store' }, { unknown: { id: true } }), byRef('aws_s3_bucket_policy', 'store')], {
        resources: [resource('aws_s3_bucket_policy', 'store', { bucket: refs('module.store.bucket_id', 'module.store') })],
        module_calls: {
          store: {
            source: './store',
            module: {
              resources: [resource('aws_s3_bucket', 'this', {})],
              outputs: { bucket_id: { expression: refs('aws_s3_bucket.this.id', 'aws_s3_bucket.this') } },
            },
          },
        },
      }),
    );
    expect(addresses(unit(list, 'module.store.aws_s3_bucket.this'))).toEqual(['aws_s3_bucket_policy.store']);
  });

  it("resolves a module variable (`var.bucket_id`) to the caller's bucket", () => {
    const list = units(
      plan(
        [
          rc('aws_s3_bucket.root', { bucket: 'root' }, { unknown: { id: true } }),
          rc('module.guard.aws_s3_bucket_public_access_block.this', {}, { unknown: { bucket: true } }),
        ],
        {
          resources: [resource('aws_s3_bucket', 'root', {})],
          module_calls: {
            guard: {
              source: './guard',
              expressions: { bucket_id: refs('aws_s3_bucket.root.id', 'aws_s3_bucket.root') },
              module: {
                resources: [resource('aws_s3_bucket_public_access_block', 'this', { bucket: refs('var.bucket_id') })],
              },
            },
          },
        },
      ),
    );
    expect(addresses(unit(list, 'aws_s3_bucket.root'))).toEqual(['module.guard.aws_s3_bucket_public_access_block.this']);
  });

  it("keeps each module instance's companions with its own bucket (for_each modules)", () => {
    const changes = ['a', 'b'].flatMap((k) => [
      rc(`module.site["${k}"].aws_s3_bucket.this`, { bucket: `site-${k}` }, { unknown: { id: true } }),
      rc(`module.site["${k}"].aws_s3_bucket_versioning.this`, {}, { unknown: { bucket: true } }),
    ]);
    const list = units(
      plan(changes, {
        module_calls: {
          site: {
            source: './site',
            for_each_expression: refs('local.sites'),
            module: {
              resources: [
                resource('aws_s3_bucket', 'this', {}),
                resource('aws_s3_bucket_versioning', 'this', { bucket: refs('aws_s3_bucket.this.id', 'aws_s3_bucket.this') }),
              ],
            },
          },
        },
      }),
    );
    expect(addresses(unit(list, 'module.site["a"].aws_s3_bucket.this'))).toEqual(['module.site["a"].aws_s3_bucket_versioning.this']);
    expect(addresses(unit(list, 'module.site["b"].aws_s3_bucket.this'))).toEqual(['module.site["b"].aws_s3_bucket_versioning.this']);
  });

  it('pairs counted instances by their index when the reference names no instance', () => {
    const list = units(
      plan(
        [0, 1].flatMap((i) => [
          rc(`aws_s3_bucket.b[${i}]`, { bucket: `b-${i}` }, { unknown: { id: true } }),
          rc(`aws_s3_bucket_logging.b[${i}]`, { target_bucket: 'logs' }, { unknown: { bucket: true } }),
        ]),
        {
          resources: [resource('aws_s3_bucket', 'b', {}), resource('aws_s3_bucket_logging', 'b', { bucket: refs('aws_s3_bucket.b', 'count.index') })],
        },
      ),
    );
    expect(addresses(unit(list, 'aws_s3_bucket.b[0]'))).toEqual(['aws_s3_bucket_logging.b[0]']);
    expect(addresses(unit(list, 'aws_s3_bucket.b[1]'))).toEqual(['aws_s3_bucket_logging.b[1]']);
  });

  it("without a configuration section, matches known equal values (a block's bucket = the bucket's name)", () => {
    const list = units(
      plan([
        rc('aws_s3_bucket.b', { bucket: 'logs-x' }),
        rc('aws_s3_bucket_acl.b', { bucket: 'logs-x', acl: 'public-read' }),
        rc('aws_s3_bucket_acl.elsewhere', { bucket: 'unrelated', acl: 'private' }),
      ]),
    );
    expect(addresses(unit(list, 'aws_s3_bucket.b'))).toEqual(['aws_s3_bucket_acl.b']);
  });

  it('an account-wide public-access block configures every bucket of the plan; a rotation its secret (by ARN)', () => {
    const list = units(
      plan([
        rc('aws_s3_bucket.a', { bucket: 'a' }),
        rc('aws_s3_bucket.b', { bucket: 'b' }),
        rc('aws_s3_account_public_access_block.this', { block_public_acls: true }),
        rc('aws_secretsmanager_secret.db', { name: 'db', arn: 'arn:aws:secretsmanager:eu-west-1:1:secret:db' }, { actions: ['no-op'], before: { name: 'db' } }),
        rc('aws_secretsmanager_secret_rotation.db', { secret_id: 'arn:aws:secretsmanager:eu-west-1:1:secret:db' }),
      ]),
    );
    for (const name of ['aws_s3_bucket.a', 'aws_s3_bucket.b']) expect(addresses(unit(list, name))).toEqual(['aws_s3_account_public_access_block.this']);
    expect(addresses(unit(list, 'aws_secretsmanager_secret.db'))).toEqual(['aws_secretsmanager_secret_rotation.db']);
  });

  it('links a NIC to its public IP through a nested block (the unit holds the reference) and a subnet to its NSG association', () => {
    const list = units(
      plan(
        [
          rc('azurerm_network_interface.nic', { ip_configuration: [{ name: 'ip' }] }, { unknown: { ip_configuration: [{ public_ip_address_id: true }] } }),
          rc('azurerm_public_ip.pip', { allocation_method: 'Static' }, { unknown: { id: true } }),
          rc('azurerm_subnet.s', { name: 'app' }, { unknown: { id: true } }),
          rc('azurerm_subnet_network_security_group_association.s', {}, { unknown: { subnet_id: true } }),
        ],
        {
          resources: [
            resource('azurerm_network_interface', 'nic', {
              ip_configuration: [{ public_ip_address_id: refs('azurerm_public_ip.pip.id', 'azurerm_public_ip.pip') }],
            }),
            resource('azurerm_subnet_network_security_group_association', 's', { subnet_id: refs('azurerm_subnet.s.id', 'azurerm_subnet.s') }),
          ],
        },
      ),
    );
    expect(addresses(unit(list, 'azurerm_network_interface.nic'))).toEqual(['azurerm_public_ip.pip']);
    expect(addresses(unit(list, 'azurerm_subnet.s'))).toEqual(['azurerm_subnet_network_security_group_association.s']);
    expect(unit(list, 'azurerm_public_ip.pip').metadata.context).toEqual([]); // the reverse view is not built
  });
});

describe('plan context on corpus plans', () => {
  const ingest = (file: string) => terraformAnalyzer.ingest!(corpusFile(`tfplan-json/${file}`).toString('utf8'));

  it('a security group gets its aws_security_group_rule (tfcompliance plan, reference through security_group_id)', () => {
    const group = ingest('tfcompliance-aws-deletes-drift-issue522.json').find((u) => u.name === 'aws_security_group.lambda_sg')!;
    expect(context(group).map((c) => [c.address, c.action])).toEqual([['aws_security_group_rule.task_sg_egress_rule', 'create']]);
    expect(context(group)[0].values).toMatchObject({ type: 'egress', cidr_blocks: [] });
  });

  it('every Azure firewall gets the public IP of its ip_configuration (infracost firewall plan)', () => {
    const list = ingest('infracost-azure-firewall.json');
    const firewalls = list.filter((u) => u.type === 'azurerm_firewall');
    expect(firewalls).toHaveLength(5);
    for (const fw of firewalls) expect(addresses(fw)).toEqual(['azurerm_public_ip.example']);
    expect(new Set(firewalls.map((f) => f.metadata.context_digest)).size).toBe(1);
  });
});
