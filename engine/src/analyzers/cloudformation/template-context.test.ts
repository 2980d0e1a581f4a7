import { describe, expect, it } from 'vitest';
import { corpusFile } from '../../../../tests/corpus';
import { runChecks } from '../../checks/run-checks';
import { loadBuiltinRuleset } from '../../rules/ruleset';
import { selectRules } from '../../rules/select';
import type { AnalysisUnit } from '../../core/unit';
import { SECRET_MARKER } from '../common/secrets';
import { cloudformationAnalyzer } from './index';

const checks = (unit: AnalysisUnit) => runChecks(selectRules(loadBuiltinRuleset('cloudformation', 'default'), unit).rules, unit).map((m) => m.rule.rule_id);

const TEMPLATE = (cidr: string, port = 22) =>
  [
    'Parameters:',
    '  Env: {Type: String, Default: prod}',
    `  AllowedCidr: {Type: String, Default: ${cidr}}`,
    '  Unused: {Type: String, Default: x}',
    '  DBPassword: {Type: String, NoEcho: true, Default: very-secret-default}',
    'Conditions:',
    '  IsProd: !Equals [!Ref Env, prod]',
    '  IsDev: !Not [{Condition: IsProd}]',
    'Mappings:',
    '  Sizes: {prod: {size: "20"}}',
    'Resources:',
    '  Sg:',
    '    Type: AWS::EC2::SecurityGroup',
    '    Properties:',
    '      GroupDescription: !Sub "admin ${AllowedCidr} ${!Literal}"',
    '      SecurityGroupIngress:',
    `        - {IpProtocol: tcp, FromPort: ${port}, ToPort: ${port}, CidrIp: !Ref AllowedCidr}`,
    '  Db:',
    '    Type: AWS::RDS::DBInstance',
    '    Condition: IsDev',
    '    Properties:',
    '      AllocatedStorage: !FindInMap [Sizes, prod, size]',
    '      StorageEncrypted: true',
    '      MasterUserPassword: !If [IsProd, !Ref DBPassword, !Ref "AWS::NoValue"]',
  ].join('\n');

describe('CloudFormation template context', () => {
  it('gives each resource the parameters, conditions (transitively) and mappings it references, NoEcho defaults masked', () => {
    const [sg, db] = cloudformationAnalyzer.ingest!(TEMPLATE('0.0.0.0/0'));
    expect(sg.metadata.template).toEqual({ parameters: { AllowedCidr: { Type: 'String', Default: '0.0.0.0/0' } }, conditions: {}, mappings: {} });
    expect((sg.metadata.context as { address: string }[]).map((c) => c.address)).toEqual(['Parameters.AllowedCidr']);
    expect(db.metadata.template).toEqual({
      parameters: { Env: { Type: 'String', Default: 'prod' }, DBPassword: { Type: 'String', NoEcho: true, Default: SECRET_MARKER } },
      conditions: { IsProd: { 'Fn::Equals': [{ Ref: 'Env' }, 'prod'] }, IsDev: { 'Fn::Not': [{ Condition: 'IsProd' }] } },
      mappings: { Sizes: { prod: { size: '20' } } },
    });
    expect((db.metadata.context as { address: string; type: string }[]).map((c) => `${c.type} ${c.address}`)).toEqual([
      'cloudformation_parameter Parameters.Env',
      'cloudformation_parameter Parameters.DBPassword',
      'cloudformation_condition Conditions.IsProd',
      'cloudformation_condition Conditions.IsDev',
      'cloudformation_mapping Mappings.Sizes',
    ]);
    expect(JSON.stringify(db)).not.toContain('very-secret-default');
  });

  it('a default change changes the context digest, not the unit hash, so the analysis is redone', () => {
    const [open] = cloudformationAnalyzer.ingest!(TEMPLATE('0.0.0.0/0'));
    const [closed] = cloudformationAnalyzer.ingest!(TEMPLATE('10.0.0.0/8'));
    expect(open.hash).toBe(closed.hash);
    expect(open.metadata.context_digest).toMatch(/^[0-9a-f]{64}$/);
    expect(open.metadata.context_digest).not.toBe(closed.metadata.context_digest);
  });

  it('CFN-SG-PARAM-DEFAULT-OPEN: SSH from a parameter defaulting to 0.0.0.0/0 is a finding; a private default or HTTPS is not', () => {
    expect(checks(cloudformationAnalyzer.ingest!(TEMPLATE('0.0.0.0/0'))[0])).toEqual(['CFN-SG-PARAM-DEFAULT-OPEN']);
    expect(checks(cloudformationAnalyzer.ingest!(TEMPLATE('10.0.0.0/8'))[0])).toEqual([]);
    expect(checks(cloudformationAnalyzer.ingest!(TEMPLATE('0.0.0.0/0', 443))[0])).toEqual([]);
  });

  it("finds the AWS sample's SSHLocation default, with the CidrIp line as evidence", () => {
    const units = cloudformationAnalyzer.ingest!(corpusFile('cfn-template/awslabs-ec2-instance-security-group.yaml').toString('utf8'));
    const sg = units.find((u) => u.name === 'InstanceSecurityGroup')!;
    const match = runChecks(selectRules(loadBuiltinRuleset('cloudformation', 'default'), sg).rules, sg).find(
      (m) => m.rule.rule_id === 'CFN-SG-PARAM-DEFAULT-OPEN',
    );
    expect(match?.evidence).toContain("CidrIp: !Ref 'SSHLocation'");
  });
});
