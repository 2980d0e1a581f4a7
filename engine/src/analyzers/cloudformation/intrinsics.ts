/**
 * CloudFormation's short-form intrinsic function tags (`!Ref`, `!Sub`, `!GetAtt`, ...; AWS
 * CloudFormation User Guide, "Intrinsic function reference") as `yaml` custom tags, so templates
 * using them parse instead of being refused.
 *
 * A scalar resolves to the long form (`!Ref X` → `{Ref: X}`, `!GetAtt a.b` → `{"Fn::GetAtt":
 * ["a", "b"]}`); a sequence or map keeps its node (and so its line range) with the tag on it.
 * Units are cut from source lines, so these values only matter for reading `Type` and the like.
 */
import type { CollectionTag, ScalarTag } from 'yaml';

const FUNCTIONS = [
  'Base64',
  'Cidr',
  'FindInMap',
  'GetAtt',
  'GetAZs',
  'ImportValue',
  'Join',
  'Length',
  'Select',
  'Split',
  'Sub',
  'ToJsonString',
  'Transform',
  'And',
  'Equals',
  'If',
  'Not',
  'Or',
] as const;

function longForm(name: string): string {
  return name === 'Ref' || name === 'Condition' ? name : `Fn::${name}`;
}

function scalarTag(name: string): ScalarTag {
  return {
    tag: `!${name}`,
    resolve: (value: string) => ({ [longForm(name)]: name === 'GetAtt' ? value.split('.', 2) : value }),
  };
}

function collectionTag(name: string, collection: 'seq' | 'map'): CollectionTag {
  return { tag: `!${name}`, collection, resolve: (node) => node };
}

/** Every short-form tag, in scalar, sequence and map shape. */
export const CFN_TAGS: (ScalarTag | CollectionTag)[] = ['Ref', 'Condition', ...FUNCTIONS].flatMap((name) => [
  scalarTag(name),
  collectionTag(name, 'seq'),
  collectionTag(name, 'map'),
]);
