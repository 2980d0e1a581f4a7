/**
 * The Kubernetes manifests (deploy/kubernetes: a kustomize base and the external-MongoDB overlay)
 * hold what a team relies on: at least two replicas probed on /health, keys only from Secrets,
 * requests and limits, a non-root read-only container, a disruption budget, a Service and an
 * Ingress that reach the pods. Every object is checked against the Kubernetes schemas, and our
 * own Kubernetes rules find nothing above LOW in our own deployment.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { aboveLow, type K8sObject, kustomizationDirs, manifestFiles, planwardenChecks, relative, renderKustomization } from './manifests';

const rendered = kustomizationDirs().map((dir) => ({ dir: relative(dir), objects: renderKustomization(dir) }));
const one = (objects: K8sObject[], kind: string) => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0];
};
const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;

/**
 * The schema validators of the `kubernetes-models` package (generated from the Kubernetes
 * OpenAPI document, run by @kubernetes-models/validate), keyed by apiVersion and kind; null when
 * that package is not installed.
 */
async function schemaModels(): Promise<Record<string, new (o: unknown) => { validate(): void }> | null> {
  const load = async (path: string, name: string) => {
    const module = (await import(/* @vite-ignore */ `kubernetes-models/${path}`)) as Record<string, new (o: unknown) => { validate(): void }>;
    return module[name];
  };
  try {
    return {
      'v1/ConfigMap': await load('v1/ConfigMap', 'ConfigMap'),
      'v1/Service': await load('v1/Service', 'Service'),
      'apps/v1/Deployment': await load('apps/v1/Deployment', 'Deployment'),
      'policy/v1/PodDisruptionBudget': await load('policy/v1/PodDisruptionBudget', 'PodDisruptionBudget'),
      'networking.k8s.io/v1/Ingress': await load('networking.k8s.io/v1/Ingress', 'Ingress'),
    };
  } catch {
    return null;
  }
}
const models = await schemaModels();

describe.each(rendered)('$dir', ({ objects }) => {
  const deployment = one(objects, 'Deployment');
  const pod = deployment.spec.template.spec;
  const container = pod.containers[0];

  it.skipIf(models === null)('every object is valid against the Kubernetes schemas (kubernetes-models)', () => {
    for (const o of objects) {
      const Model = models?.[`${o.apiVersion}/${o.kind}`];
      expect(Model, `${o.apiVersion}/${o.kind} has a schema`).toBeDefined();
      expect(() => new (Model as NonNullable<typeof Model>)(o).validate(), `${o.kind}/${o.metadata.name}`).not.toThrow();
    }
  });

  it('runs at least two non-root replicas on a read-only root, probed on /health', () => {
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      expect(container[probe].httpGet, probe).toEqual({ path: '/health', port: 'http' });
    }
    expect(container.ports).toContainEqual(expect.objectContaining({ name: 'http', containerPort: 8000 }));
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(pod.automountServiceAccountToken).toBe(false);
    // The writable places a read-only root needs are scratch volumes.
    const volumes = Object.fromEntries(pod.volumes.map((v: { name: string }) => [v.name, v]));
    for (const mount of container.volumeMounts) expect(volumes[mount.name].emptyDir, mount.mountPath).toBeDefined();
    expect(container.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toContain('/tmp');
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
  });

  it('takes keys from Secrets only, and runs on MongoDB (replicas cannot share SQLite)', () => {
    const env = container.env as { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
    for (const name of ['PLANWARDEN_STORAGE_URI', 'PLANWARDEN_SECRET_KEY', 'PLANWARDEN_JWT_SECRET', 'PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD']) {
      const entry = env.find((e) => e.name === name);
      expect(entry?.valueFrom?.secretKeyRef, name).toBeDefined();
      expect(entry?.value, name).toBeUndefined();
    }
    const config = one(objects, 'ConfigMap');
    expect(container.envFrom).toContainEqual({ configMapRef: { name: config.metadata.name } });
    expect(config.data.PLANWARDEN_STORAGE_BACKEND).toBe('docdb');
    for (const key of Object.keys(config.data)) expect(key, 'a secret in the ConfigMap').not.toMatch(/SECRET|PASSWORD|TOKEN|_KEY$|_URI$/);
  });

  it('the disruption budget, the Service and the Ingress reach the pods', () => {
    const labels = deployment.spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    expect(selects(deployment.spec.selector.matchLabels)).toBe(true);
    const pdb = one(objects, 'PodDisruptionBudget');
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    expect(pdb.spec.minAvailable).toBeLessThan(deployment.spec.replicas);
    const service = one(objects, 'Service');
    expect(service.spec.type).toBe('ClusterIP');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe('http');
    const ingress = one(objects, 'Ingress');
    const backend = ingress.spec.rules[0].http.paths[0].backend.service;
    expect(backend).toEqual({ name: service.metadata.name, port: { name: service.spec.ports[0].name } });
  });

  it('our own Kubernetes checks find nothing above LOW', () => {
    const text = objects.map((o) => JSON.stringify(o)).join('\n---\n');
    expect(aboveLow(planwardenChecks('kubernetes', 'deploy/kubernetes/rendered.yaml', text))).toEqual([]);
  });
});

describe('the manifests', () => {
  it('our own Kubernetes checks find nothing above LOW in any manifest file as written', () => {
    for (const file of manifestFiles()) {
      expect(aboveLow(planwardenChecks('kubernetes', relative(file), readFileSync(file, 'utf8'))), relative(file)).toEqual([]);
    }
  });

  it('the same checks do find a weakened copy (root, privileged, a literal password)', () => {
    const deployment = renderKustomization(kustomizationDirs()[0]).find((o) => o.kind === 'Deployment') as K8sObject;
    const pod = deployment.spec.template.spec;
    pod.securityContext = {};
    pod.containers[0].securityContext = { privileged: true };
    pod.containers[0].env.push({ name: 'PLANWARDEN_AUTH_DEFAULT_ADMIN_PASSWORD', value: 'hunter2-hunter2' });
    const found = aboveLow(planwardenChecks('kubernetes', 'weakened.yaml', JSON.stringify(deployment))).map((f) => f.ruleId);
    expect(found).toEqual(expect.arrayContaining(['K8S-RUN-AS-ROOT', 'K8S-PRIVILEGED-CONTAINER', 'K8S-SECRET-IN-ENV']));
  });

  it.skipIf(!kubectl)('the tests render each kustomization as kustomize does (kubectl kustomize)', () => {
    for (const { dir, objects } of rendered) {
      const out = spawnSync('kubectl', ['kustomize', dir], { cwd: `${import.meta.dirname}/../..`, encoding: 'utf8' });
      expect(out.status, out.stderr).toBe(0);
      const byKey = (list: K8sObject[]) => Object.fromEntries(list.map((o) => [`${o.kind}/${o.metadata.name}`, o]));
      expect(byKey(parseAllDocuments(out.stdout).map((d) => d.toJS() as K8sObject))).toEqual(byKey(objects));
    }
  });
});
