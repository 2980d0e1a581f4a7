import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { expectCorpusUnits } from '../../../../tests/helpers/analyzer-testing';
import { kubernetesAnalyzer } from './index';

/** Objects of a manifest counted by the yaml package alone: non-empty documents. */
function independentCount(text: string): number {
  return parseAllDocuments(text).filter((d) => d.toJS() != null).length;
}

describe('kubernetes analyzer', () => {
  it.each(corpusFiles('k8s-yaml'))('%s: one unit per object, stable hashes, bodies of source lines', (rel) => {
    const text = corpusFile(rel).toString('utf8');
    const units = expectCorpusUnits(kubernetesAnalyzer, rel, independentCount(text));
    const docs = parseAllDocuments(text)
      .map((d) => d.toJS())
      .filter((v) => v != null) as { kind: string; metadata: { name: string; namespace?: string } }[];
    expect(units.map((u) => u.name)).toEqual(docs.map((d) => [d.kind, d.metadata.namespace, d.metadata.name].filter(Boolean).join('/')));
    expect(units.map((u) => u.type)).toEqual(docs.map((d) => d.kind));
    expect(kubernetesAnalyzer.sniff!(text)).toMatchObject({ kind: 'kubernetes-manifest' });
  });

  it('puts kind and namespace/name in the unit name and keeps Helm source comments and privileged lines in the body', () => {
    const manifest = [
      '---',
      '# Source: chart/templates/sa.yaml',
      'apiVersion: v1',
      'kind: ServiceAccount',
      'metadata:',
      '  name: app',
      '  namespace: shop',
      '---',
      '# Source: chart/templates/ds.yaml',
      'apiVersion: apps/v1',
      'kind: DaemonSet',
      'metadata:',
      '  name: agent',
      'spec:',
      '  template:',
      '    spec:',
      '      containers:',
      '        - name: a',
      '          image: agent:latest',
      '          securityContext:',
      '            privileged: true',
      '---',
      '# trailing comment only',
      '',
    ].join('\n');
    const units = kubernetesAnalyzer.ingest!(manifest, { path: 'helm-out.yaml' });
    expect(units.map((u) => [u.type, u.name])).toEqual([
      ['ServiceAccount', 'ServiceAccount/shop/app'],
      ['DaemonSet', 'DaemonSet/agent'],
    ]);
    expect(units[1].body).toContain('            privileged: true');
    expect(units[1].metadata).toMatchObject({ helm_source: 'chart/templates/ds.yaml', start_line: 9, end_line: 21 });
  });

  it('expands a List into its items', () => {
    const list =
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Service\n  metadata: {name: b}\n';
    expect(kubernetesAnalyzer.ingest!(list).map((u) => u.name)).toEqual(['Service/a', 'Service/b']);
  });

  it('refuses YAML without objects and broken YAML with 422s', () => {
    expect(() => kubernetesAnalyzer.ingest!('replicaCount: 3\nimage: {tag: latest}\n')).toThrow(ValidationError);
    expect(() => kubernetesAnalyzer.ingest!('apiVersion: v1\nkind: [unclosed\n')).toThrow(/YAML syntax error at line/);
    expect(kubernetesAnalyzer.sniff!('replicaCount: 3\n')).toBeNull();
  });
});
