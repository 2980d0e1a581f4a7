import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { expectCorpusUnits } from '../../../../tests/helpers/analyzer-testing';
import { cloudformationAnalyzer } from './index';

/** Logical ids counted independently: the raw text with every `!Tag` stripped, parsed plainly. */
function logicalIds(text: string): string[] {
  const value = (text.trimStart().startsWith('{') ? JSON.parse(text) : parse(text.replace(/!(\w+)/g, ''))) as { Resources: Record<string, unknown> };
  return Object.keys(value.Resources);
}

describe('cloudformation analyzer', () => {
  it.each(corpusFiles('cfn-template'))('%s: one unit per resource, intrinsic tags parsed', (rel) => {
    const text = corpusFile(rel).toString('utf8');
    const ids = logicalIds(text);
    const units = expectCorpusUnits(cloudformationAnalyzer, rel, ids.length);
    expect(units.map((u) => u.name)).toEqual(ids);
    for (const unit of units) expect(unit.type).toMatch(/^AWS::/);
    expect(cloudformationAnalyzer.sniff!(text)).toMatchObject({ kind: 'cloudformation-template' });
  });

  it('accepts every short-form intrinsic in scalar, sequence and map form', () => {
    const template = [
      'Resources:',
      '  Bucket:',
      '    Type: AWS::S3::Bucket',
      '    Properties:',
      '      BucketName: !Sub "${AWS::StackName}-data"',
      '      Tags:',
      '        - Key: a',
      '          Value: !Join [",", [!Ref P, !GetAtt Role.Arn]]',
      '        - Key: b',
      '          Value: !If [IsProd, !Select [0, !GetAZs ""], !ImportValue x]',
      '        - Key: c',
      '          Value: !Transform {Name: AWS::Include, Parameters: {Location: s3://x}}',
    ].join('\n');
    const units = cloudformationAnalyzer.ingest!(template);
    expect(units.map((u) => [u.type, u.name, u.metadata.start_line, u.metadata.end_line])).toEqual([['AWS::S3::Bucket', 'Bucket', 2, 12]]);
    expect(cloudformationAnalyzer.sniff!(template)).toMatchObject({ confidence: 0.85 });
  });

  it('refuses YAML without Resources', () => {
    expect(() => cloudformationAnalyzer.ingest!('AWSTemplateFormatVersion: "2010-09-09"\nOutputs: {}\n')).toThrow(ValidationError);
  });
});
