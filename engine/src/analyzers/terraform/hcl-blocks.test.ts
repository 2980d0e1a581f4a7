import { describe, expect, it } from 'vitest';
import { findTopLevelBlocks, parseBlockOpener } from './hcl-blocks';

const blocks = (text: string) =>
  findTopLevelBlocks([{ lines: text.split('\n'), estimate: false }]).map((b) => [b.opener?.name ?? null, b.start, b.end, b.closed]);

describe('parseBlockOpener', () => {
  it('names blocks like Terraform addresses', () => {
    expect(parseBlockOpener('resource "aws_s3_bucket" "logs" {')).toMatchObject({ type: 'aws_s3_bucket', name: 'aws_s3_bucket.logs' });
    expect(parseBlockOpener('data "aws_iam_policy_document" "p" {')).toMatchObject({ type: 'aws_iam_policy_document', name: 'data.aws_iam_policy_document.p' });
    expect(parseBlockOpener('module "vpc" {')).toMatchObject({ type: 'module', name: 'module.vpc' });
    expect(parseBlockOpener('variable "x" {}')).toMatchObject({ type: 'variable', name: 'var.x' });
    expect(parseBlockOpener('locals {')).toMatchObject({ type: 'locals', name: 'locals' });
    expect(parseBlockOpener('resource aws_instance web {')).toMatchObject({ name: 'aws_instance.web' });
    expect(parseBlockOpener('ingress {')).toBeNull();
    expect(parseBlockOpener('resource "only_one_label" {')).toBeNull();
  });
});

describe('findTopLevelBlocks', () => {
  it('ignores braces in strings, interpolations, comments and heredocs', () => {
    const text = [
      'resource "a" "one" {', // 0
      '  s = "}}} ${lookup(m, "}")} {"', // 1
      '  # } comment', // 2
      '  /* { */ t = 1', // 3
      '  policy = <<-EOT', // 4
      '    { "Statement": [ }', // 5
      '  EOT', // 6
      '}', // 7
      'variable "v" {}', // 8
      'output "o" {', // 9
      '  value = "%{ if true }x%{ endif }"', // 10
      '}', // 11
    ].join('\n');
    expect(blocks(text)).toEqual([
      ['a.one', 0, 7, true],
      ['var.v', 8, 8, true],
      ['output.o', 9, 11, true],
    ]);
  });

  it('reports an unterminated block as not closed', () => {
    expect(blocks('module "m" {\n  source = "x"')).toEqual([['module.m', 0, 1, false]]);
  });

  it('estimates the starting depth of a hunk and takes the block name from its heading', () => {
    const spans = findTopLevelBlocks([
      {
        lines: ['    condition {', '      test = "x"', '    }', '  }', '}', '', 'locals {', '  a = 1'],
        estimate: true,
        header: 'data "aws_iam_policy_document" "p" {',
      },
    ]);
    expect(spans.map((b) => [b.opener?.name, b.start, b.end, b.closed, b.inferred])).toEqual([
      ['data.aws_iam_policy_document.p', 0, 4, true, true],
      ['locals', 6, 7, false, false],
    ]);
  });

  it('continues a block across hunks with the same heading', () => {
    const header = 'module "m" {';
    const spans = findTopLevelBlocks([
      { lines: ['  a = 1'], estimate: true, header },
      { lines: ['  b = 2', '}'], estimate: true, header },
    ]);
    expect(spans.map((b) => [b.opener?.name, b.start, b.end, b.closed])).toEqual([['module.m', 0, 2, true]]);
  });
});
