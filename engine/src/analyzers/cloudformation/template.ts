/**
 * A CloudFormation template (YAML or JSON, SAM included) → one unit per entry of `Resources`
 * (analysis-api.md "Analysis unit").
 *
 * - Unit: type = the resource's `Type` (`AWS::S3::Bucket`; `cloudformation_resource` when it has
 *   none), name = the logical id, action `create`.
 * - Body: `# file:` line, a comment naming the resource, then its source lines verbatim (for
 *   JSON, from `"LogicalId": {` to its closing brace).
 * - Parameters, Conditions and Mappings are not copied into bodies: a `!Ref` to a parameter is
 *   shown as written; the entries a resource references are its context (template-context.ts:
 *   `metadata.template` for checks, `metadata.context` for the model and the analysis cache).
 * - `metadata.values` is the resource as plain data (`{Type, Properties, ...}`, short-form
 *   intrinsics in long form) for deterministic checks (not hashed).
 * - Secrets (credential-named property literals, credential shapes, NoEcho parameter defaults)
 *   are masked before the unit exists (../common/mask-unit.ts, template-context.ts).
 */
import { isMap, isScalar, type Node, type YAMLMap } from 'yaml';
import { ValidationError } from '../../core/errors';
import type { AnalysisUnit } from '../../core/unit';
import { withContext } from '../common/context';
import { maskUnitSecrets, secretsMetadata } from '../common/mask-unit';
import { fileHeader, makeUnit } from '../common/unit';
import { isEmptyDocument, pairSpan, parseYamlSource, sliceLines, type YamlSource } from '../common/yaml-source';
import { CFN_TAGS } from './intrinsics';
import { referencedTemplate, templateSections } from './template-context';

export const DEFAULT_RESOURCE_TYPE = 'cloudformation_resource';

/** Parses with the intrinsic tags. Throws ValidationError on bad YAML/JSON. */
export function parseTemplate(text: string): YamlSource {
  return parseYamlSource(text, CFN_TAGS);
}

/** The template's `Resources` map (node and plain data), or a ValidationError saying why the text is not a template. */
function resourcesOf(source: YamlSource): { node: YAMLMap; value: Record<string, unknown>; doc: Record<string, unknown> } {
  const docs = source.docs.filter((d) => !isEmptyDocument(d));
  if (docs.length !== 1 || !isMap(docs[0].contents)) throw new ValidationError('The input is not a CloudFormation template: expected one YAML or JSON map');
  const resources = docs[0].contents.get('Resources', true);
  if (!isMap(resources) || resources.items.length === 0) throw new ValidationError('The input is not a CloudFormation template: no Resources map');
  const doc = docs[0].toJS({ maxAliasCount: 1000 }) as Record<string, unknown>;
  const plain = doc.Resources;
  return { node: resources, value: (plain && typeof plain === 'object' ? plain : {}) as Record<string, unknown>, doc };
}

/** Units of one template. Throws ValidationError on bad YAML/JSON or a text that is not a template. */
export function templateUnits(text: string, path: string | undefined, analyzer: string): AnalysisUnit[] {
  const source = parseTemplate(text);
  const { node: resources, value: plainResources, doc } = resourcesOf(source);
  const sections = templateSections(doc);
  const format = text.trimStart().startsWith('{') ? 'json' : 'yaml';
  return resources.items.map((pair) => {
    const logicalId = isScalar(pair.key) ? String(pair.key.value) : '';
    const plain = plainResources[logicalId];
    const resource = (plain && typeof plain === 'object' ? plain : {}) as Record<string, unknown>;
    const type = typeof resource.Type === 'string' && resource.Type !== '' ? resource.Type : DEFAULT_RESOURCE_TYPE;
    const span = pairSpan(source, pair.key as Node, pair.value as Node | null);
    const masked = maskUnitSecrets([...fileHeader(path), `# CloudFormation resource ${logicalId} (${type})`, ...sliceLines(source, span)].join('\n'), resource);
    const { template, context } = referencedTemplate(resource, sections, 'create');
    const metadata = {
      source: 'cloudformation',
      path: path ?? null,
      format,
      logical_id: logicalId,
      start_line: span.start,
      end_line: span.end,
      condition: typeof resource.Condition === 'string' ? resource.Condition : null,
      deletion_policy: typeof resource.DeletionPolicy === 'string' ? resource.DeletionPolicy : null,
      values: masked.values,
      template,
      ...secretsMetadata(masked.secrets),
    };
    return makeUnit(analyzer, { type, name: logicalId, action: 'create', body: masked.body }, withContext(metadata, context));
  });
}

/**
 * Sniff hook: `AWSTemplateFormatVersion` → 0.95; a `Resources` map with an `AWS::` type → 0.85;
 * else null.
 */
export function sniffTemplate(content: string): { kind: string; confidence: number } | null {
  const versioned = /["']?AWSTemplateFormatVersion["']?\s*:/.test(content);
  if (!versioned && !/["']?Type["']?\s*:\s*["']?AWS::/.test(content)) return null;
  try {
    const { value } = resourcesOf(parseTemplate(content));
    if (versioned) return { kind: 'cloudformation-template', confidence: 0.95 };
    const types = Object.values(value).map((r) => (r && typeof r === 'object' ? (r as { Type?: unknown }).Type : undefined));
    return types.some((t) => typeof t === 'string' && t.startsWith('AWS::')) ? { kind: 'cloudformation-template', confidence: 0.85 } : null;
  } catch {
    return null;
  }
}
