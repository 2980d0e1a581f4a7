/**
 * Kubernetes manifests (one or more YAML documents, `kubectl`/`helm template` output included)
 * → one unit per object (analysis-api.md "Analysis unit").
 *
 * - Unit: type = `kind`, name = `<kind>/<namespace>/<name>` (`<kind>/<name>` when the manifest
 *   sets no namespace; `metadata.generateName` shown as `<prefix>*`), action `create` (a manifest
 *   says what applying it creates), body = `# file:` line + the object's source lines verbatim,
 *   including its leading comments (Helm's `# Source:` line).
 * - `kind: List` (and `*List` kinds with `items`) → one unit per item.
 * - A non-empty document that is not an object (no `apiVersion`/`kind`) becomes a
 *   `yaml_document` unit, so nothing in the file is silently dropped.
 * - `metadata.values` is the object as plain data (for deterministic checks; not hashed).
 * - Secrets (credential-named env values and ConfigMap keys, every `Secret` data value) are masked
 *   in the body and the values before the unit exists (../common/mask-unit.ts).
 */
import { isMap, isSeq, type Document, type Node } from 'yaml';
import { ValidationError } from '../../core/errors';
import type { AnalysisUnit } from '../../core/unit';
import { maskUnitSecrets, secretsMetadata } from '../common/mask-unit';
import { fileHeader, makeUnit } from '../common/unit';
import { isEmptyDocument, parseYamlSource, sliceLines, type LineSpan, type YamlSource } from '../common/yaml-source';

interface ObjectInfo {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string | null;
  readonly namespace: string | null;
}

/** apiVersion/kind/metadata of a plain value, or null when it is not a Kubernetes object. */
export function objectInfo(value: unknown): ObjectInfo | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  if (typeof v.apiVersion !== 'string' || typeof v.kind !== 'string' || v.kind === '') return null;
  const meta = (v.metadata && typeof v.metadata === 'object' ? v.metadata : {}) as Record<string, unknown>;
  const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);
  const generated = str(meta.generateName);
  return { apiVersion: v.apiVersion, kind: v.kind, name: str(meta.name) ?? (generated ? `${generated}*` : null), namespace: str(meta.namespace) };
}

/** `Deployment/shop/cart`, `ClusterRole/admin`, `Pod/(unnamed)`. */
export function objectName(info: ObjectInfo): string {
  return [info.kind, info.namespace, info.name ?? '(unnamed)'].filter((p) => p !== null).join('/');
}

/**
 * Units of a manifest. `path` (optional) is shown in each body.
 * Throws ValidationError on a YAML syntax error, or when no document is a Kubernetes object.
 */
export function manifestUnits(text: string, path: string | undefined, analyzer: string): AnalysisUnit[] {
  const source = parseYamlSource(text);
  const units: AnalysisUnit[] = [];
  let objects = 0;
  source.docs.forEach((doc, index) => {
    if (isEmptyDocument(doc)) return;
    const span = documentSpan(source, doc);
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    const info = objectInfo(value);
    const items = info?.kind.endsWith('List') && isMap(doc.contents) ? doc.contents.get('items') : null;
    if (info && isSeq(items)) {
      const plain = (value as { items?: unknown }).items;
      items.items.forEach((item, i) => {
        const itemInfo = objectInfo(Array.isArray(plain) ? plain[i] : null);
        const node = item as Node;
        if (!itemInfo || !node.range) return;
        units.push(
          objectUnit(source, { start: source.lineOf(node.range[0]), end: source.endLineOf(node) }, itemInfo, index, path, analyzer, (plain as unknown[])[i]),
        );
        objects += 1;
      });
      return;
    }
    if (info) {
      units.push(objectUnit(source, span, info, index, path, analyzer, value));
      objects += 1;
      return;
    }
    const { body, secrets } = maskUnitSecrets([...fileHeader(path), ...sliceLines(source, span)].join('\n'), value);
    units.push(
      makeUnit(
        analyzer,
        { type: 'yaml_document', name: `document ${index + 1}`, action: 'create', body },
        { source: 'yaml', path: path ?? null, document: index + 1, start_line: span.start, end_line: span.end, ...secretsMetadata(secrets) },
      ),
    );
  });
  if (objects === 0) throw new ValidationError('The input is not a Kubernetes manifest: no YAML document has apiVersion and kind');
  return units;
}

/** `value` is the object as plain data: metadata.values, read by deterministic checks (checks/run-checks.ts). */
function objectUnit(
  source: YamlSource,
  span: LineSpan,
  info: ObjectInfo,
  index: number,
  path: string | undefined,
  analyzer: string,
  value: unknown,
): AnalysisUnit {
  const lines = sliceLines(source, span);
  const helmSource = lines.map((l) => /^# Source: (.+)$/.exec(l)?.[1]).find((s) => s !== undefined) ?? null;
  // A Secret's data and stringData are secret whatever their keys; elsewhere credential names say so.
  const secretPath = info.kind === 'Secret' ? (p: readonly (string | number)[]) => p.length === 2 && (p[0] === 'data' || p[0] === 'stringData') : undefined;
  const masked = maskUnitSecrets([...fileHeader(path), ...lines].join('\n'), value, { secretPath });
  const body = masked.body;
  return makeUnit(
    analyzer,
    { type: info.kind, name: objectName(info), action: 'create', body },
    {
      source: 'yaml',
      path: path ?? null,
      document: index + 1,
      start_line: span.start,
      end_line: span.end,
      api_version: info.apiVersion,
      kind: info.kind,
      namespace: info.namespace,
      object_name: info.name,
      helm_source: helmSource,
      values: masked.values,
      ...secretsMetadata(masked.secrets),
    },
  );
}

/** From the first line after the document's `---` marker (comments included) to its last value line. */
function documentSpan(source: YamlSource, doc: Document.Parsed): LineSpan {
  let start = source.lineOf(doc.range[0]);
  const contents = doc.contents as Node;
  const contentStart = source.lineOf(contents.range?.[0] ?? doc.range[0]);
  if (/^---(\s|$)/.test(source.lines[start - 1] ?? '') && contentStart > start) start += 1;
  return { start, end: Math.max(start, source.endLineOf(contents)) };
}

/**
 * Sniff hook: 0.9 when every non-empty document is a Kubernetes object, 0.6 when some are,
 * null otherwise (also for YAML that does not parse).
 */
export function sniffManifest(content: string): { kind: string; confidence: number } | null {
  if (!/^\s*["']?apiVersion["']?\s*:/m.test(content) || !/^\s*["']?kind["']?\s*:/m.test(content)) return null;
  let source: YamlSource;
  try {
    source = parseYamlSource(content);
  } catch {
    return null;
  }
  const docs = source.docs.filter((d) => !isEmptyDocument(d));
  const objects = docs.filter((d) => objectInfo(d.toJS({ maxAliasCount: 1000 })) !== null).length;
  if (objects === 0) return null;
  return { kind: 'kubernetes-manifest', confidence: objects === docs.length ? 0.9 : 0.6 };
}
