/**
 * CloudFormation's short-form intrinsic function tags (`!Ref`, `!Sub`, `!GetAtt`, ...; AWS
 * CloudFormation User Guide, "Intrinsic function reference") as `yaml` custom tags, so templates
 * using them parse instead of being refused.
 *
 * A scalar resolves to the long form (`!Ref X` → `{Ref: X}`, `!GetAtt a.b` → `{"Fn::GetAtt":
 * ["a", "b"]}`); a sequence or map keeps its node (and so its line range) with the tag on it, and
 * its plain data is the long form too (`!If [C, a, b]` → `{"Fn::If": ["C", "a", "b"]}`), so a
 * YAML template's `metadata.values` has the shape a JSON template's has and checks can tell a
 * condition name or a mapping name from a literal list.
 */
import type { CollectionTag, ScalarTag, YAMLMap, YAMLSeq } from 'yaml';

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
  return {
    tag: `!${name}`,
    collection,
    resolve: (node: YAMLMap.Parsed | YAMLSeq.Parsed) => {
      // The node stays (line ranges); only its conversion to plain data wraps it in the long form.
      const plain = node.toJSON.bind(node) as (arg?: unknown, ctx?: unknown) => unknown;
      node.toJSON = ((arg?: unknown, ctx?: unknown) => ({ [longForm(name)]: plain(arg, ctx) })) as typeof node.toJSON;
      return node;
    },
  };
}

/** Every short-form tag, in scalar, sequence and map shape. */
export const CFN_TAGS: (ScalarTag | CollectionTag)[] = ['Ref', 'Condition', ...FUNCTIONS].flatMap((name) => [
  scalarTag(name),
  collectionTag(name, 'seq'),
  collectionTag(name, 'map'),
]);
