/**
 * Template context of a CloudFormation resource (docs/decisions.md "CloudFormation context"): the
 * entries of the template's `Parameters`, `Conditions` and `Mappings` that the resource references,
 * as a plan unit carries its companions (../common/context.ts).
 *
 * - References: `Ref` to a parameter, `${Name}` in `Fn::Sub` (not `${!Literal}`, not a name the
 *   `Fn::Sub` variable map defines), the map name of `Fn::FindInMap`, the condition of `Fn::If`,
 *   a `{Condition: name}` operand and the resource's own `Condition`; a referenced condition's
 *   own references follow (transitively), so `IsProd: !Equals [!Ref Env, prod]` brings `Env`.
 *   `Ref` to a pseudo parameter (`AWS::Region`) or another resource references nothing here.
 * - Secrets: a parameter with `NoEcho: true`, or whose name is credential-named, has its literal
 *   `Default` replaced by SECRET_MARKER before anything is stored or shown.
 * - `metadata.template` = `{parameters, conditions, mappings}` (each name → its entry, plain
 *   data), read by checks as `template`; `metadata.context` = one entry per referenced name
 *   (`{address: "Parameters.SSHLocation", type: "cloudformation_parameter", action, values}`, in
 *   section then template order), shown to the model and keyed into the analysis cache.
 */
import type { Companion } from '../common/context';
import { isCredentialKey, isSecretLiteral, SECRET_MARKER } from '../common/secrets';

/** The three sections a resource can reference, each name → entry (plain data). */
export interface TemplateSections {
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly conditions: Readonly<Record<string, unknown>>;
  readonly mappings: Readonly<Record<string, unknown>>;
}

const SECTIONS = [
  ['parameters', 'Parameters', 'cloudformation_parameter'],
  ['conditions', 'Conditions', 'cloudformation_condition'],
  ['mappings', 'Mappings', 'cloudformation_mapping'],
] as const;

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The template document's sections (plain data), parameter defaults masked as the module comment says. */
export function templateSections(doc: unknown): TemplateSections {
  const root = record(doc);
  const parameters: Record<string, unknown> = {};
  for (const [name, raw] of Object.entries(record(root.Parameters))) {
    const p = record(raw);
    const hidden = p.NoEcho === true || String(p.NoEcho).toLowerCase() === 'true' || isCredentialKey(name);
    const secret = hidden && p.Default !== undefined && p.Default !== null && isSecretLiteral(String(p.Default), name);
    parameters[name] = secret ? { ...p, Default: SECRET_MARKER } : raw;
  }
  return { parameters, conditions: record(root.Conditions), mappings: record(root.Mappings) };
}

/**
 * The part of `sections` that `resource` (one `Resources` entry, plain data) references, and the
 * same as context entries with `action`. Pure; never throws.
 */
export function referencedTemplate(resource: unknown, sections: TemplateSections, action: string): { template: TemplateSections; context: Companion[] } {
  const names = { parameters: new Set<string>(), conditions: new Set<string>(), mappings: new Set<string>() };
  const pending: unknown[] = [resource];
  const own = record(resource).Condition;
  if (typeof own === 'string') addCondition(own);
  function addCondition(name: string): void {
    if (!(name in sections.conditions) || names.conditions.has(name)) return;
    names.conditions.add(name);
    pending.push(sections.conditions[name]);
  }
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    if (value === null || typeof value !== 'object') return;
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string' && v.Ref in sections.parameters) names.parameters.add(v.Ref);
    if (typeof v.Condition === 'string') addCondition(v.Condition);
    const sub = v['Fn::Sub'];
    if (sub !== undefined) for (const n of subNames(sub)) if (n in sections.parameters) names.parameters.add(n);
    const findInMap = v['Fn::FindInMap'];
    if (Array.isArray(findInMap) && typeof findInMap[0] === 'string' && findInMap[0] in sections.mappings) names.mappings.add(findInMap[0]);
    const ifArgs = v['Fn::If'];
    if (Array.isArray(ifArgs) && typeof ifArgs[0] === 'string') addCondition(ifArgs[0]);
    for (const child of Object.values(v)) visit(child);
  };
  while (pending.length > 0) visit(pending.shift());
  const template = {
    parameters: pick(sections.parameters, names.parameters),
    conditions: pick(sections.conditions, names.conditions),
    mappings: pick(sections.mappings, names.mappings),
  };
  const context = SECTIONS.flatMap(([key, section, type]) =>
    Object.entries(template[key]).map(([name, values]) => ({ address: `${section}.${name}`, type, action, values: values ?? null })),
  );
  return { template, context };
}

/** Names a `Fn::Sub` string uses (`${Name}`, not `${!Literal}` nor `${Res.Attr}`), minus those its variable map defines. */
function subNames(sub: unknown): string[] {
  const [text, vars] = Array.isArray(sub) ? [sub[0], record(sub[1])] : [sub, {}];
  if (typeof text !== 'string') return [];
  return [...text.matchAll(/\$\{([A-Za-z0-9]+)\}/g)].map((m) => m[1]).filter((n) => !(n in vars));
}

/** The entries of `from` named in `names`, in `from`'s (template) order. */
function pick(from: Readonly<Record<string, unknown>>, names: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(from))
    if (names.has(k)) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}
