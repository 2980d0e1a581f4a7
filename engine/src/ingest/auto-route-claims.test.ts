/**
 * Routing of diff files whose hunks lack the telling keys (auto-route.ts `sniffedDiffFile`,
 * analyzers/kubernetes/diff-claim.ts): a modified manifest's hunk deep inside the file shows no
 * `apiVersion`/`kind`, so its name, its pre-image and its other hunks decide.
 */
import { describe, expect, it } from 'vitest';
import { createAnalyzerRegistry } from '../analyzers/registry';
import { autoRoute } from './auto-route';

const analyzers = createAnalyzerRegistry().list();
const all = (): boolean => true;

/** A modified file's diff with one hunk of the given lines (' ', '+', '-' prefixed). */
function modified(path: string, lines: readonly string[], at = 212): string {
  const old = lines.filter((l) => !l.startsWith('+')).length;
  const now = lines.filter((l) => !l.startsWith('-')).length;
  return [
    `diff --git a/${path} b/${path}`,
    'index 1111111..2222222 100644',
    `--- a/${path}`,
    `+++ b/${path}`,
    `@@ -${at},${old} +${at},${now} @@ spec:`,
    ...lines,
    '',
  ].join('\n');
}

const CONTAINER_HUNK = [
  '       containers:',
  '       - name: server',
  '-        image: example/frontend:v0.10.2',
  '+        image: example/frontend:v0.10.3',
  '         securityContext:',
  '+          privileged: true',
  '           readOnlyRootFilesystem: true',
];

function detection(diff: string) {
  const result = autoRoute(diff, analyzers, all);
  expect(result.detections).toHaveLength(1);
  return { ...result.detections[0], units: result.units };
}

describe('autoRoute: diff files whose hunks lack apiVersion/kind', () => {
  it.each(['kubernetes-manifests.yaml', 'release/kubernetes-manifests.yaml', 'k8s.yml', 'app-deployment.yaml', 'deploy/manifest.yaml'])(
    '%s: claimed by the kubernetes analyzer from its name, not left to the fallback',
    (path) => {
      const d = detection(modified(path, CONTAINER_HUNK));
      expect(d).toMatchObject({ analyzer: 'kubernetes', detected_kind: 'kubernetes-manifest', confidence: 0.5, fallback: false, reason: null });
      expect(d.units.map((u) => [u.type, u.name])).toEqual([['kubernetes_manifest_change', path]]);
      expect(d.units[0].body).toContain('+          privileged: true');
    },
  );

  it('a YAML file with a neutral name and the same hunk still goes to the fallback', () => {
    expect(detection(modified('config/app-settings.yaml', CONTAINER_HUNK))).toMatchObject({ analyzer: 'blackhole', fallback: true });
  });

  it('a name that says manifest is not enough for a non-YAML file, a workflow or a CloudFormation template', () => {
    expect(detection(modified('docs/deployment.md', CONTAINER_HUNK))).toMatchObject({ analyzer: 'blackhole' });
    const workflow = modified('.github/workflows/deployment.yml', ['   steps:', '-      - run: make deploy', '+      - run: make deploy-all']);
    expect(detection(workflow)).toMatchObject({ analyzer: 'github-actions', confidence: 1 });
    const template = modified('infra/deployment.yaml', [
      '   Bucket:',
      '     Type: AWS::S3::Bucket',
      '     Properties:',
      '-      BucketName: a',
      '+      BucketName: b',
    ]);
    expect(detection(template).analyzer).not.toBe('kubernetes');
  });

  it('another hunk that names the object claims the file (confidence 0.6)', () => {
    const top = modified(
      'deploy/web.yaml',
      [' apiVersion: apps/v1', ' kind: Deployment', ' metadata:', '-  name: web', '+  name: web-frontend', '   labels:'],
      1,
    );
    const fragment = [
      '           limits:',
      '             memory: 256Mi',
      '       hostNetwork: false',
      '-      serviceAccountName: web',
      '+      serviceAccountName: web-frontend',
      '       volumes:',
    ];
    const deep = modified('deploy/web.yaml', fragment, 40).split('\n').slice(4).join('\n');
    // The hunks joined do not parse as YAML, so no sniff claims the file; the lines do.
    expect(detection(`${top}${deep}`)).toMatchObject({ analyzer: 'kubernetes', confidence: 0.6 });
  });

  it('the pre-image decides when only removed lines show the object', () => {
    const removal = modified(
      'deploy/app.yaml',
      [' ---', '-apiVersion: v1', '-kind: Service', '-metadata:', '-  name: legacy', '-spec:', '-  type: NodePort'],
      20,
    );
    const d = detection(removal);
    expect(d).toMatchObject({ analyzer: 'kubernetes', detected_kind: 'kubernetes-manifest', fallback: false });
    expect(d.confidence).toBeGreaterThan(0.6); // a sniff of the parsed pre-image, above the name and line claims
  });

  it('an added file is judged by its complete content, whatever its name says', () => {
    const added = [
      'diff --git a/manifest.yml b/manifest.yml',
      'new file mode 100644',
      'index 0000000..1111111',
      '--- /dev/null',
      '+++ b/manifest.yml',
      '@@ -0,0 +1,3 @@',
      '+applications:',
      '+- name: web',
      '+  memory: 256M',
      '',
    ].join('\n');
    expect(detection(added)).toMatchObject({ analyzer: 'blackhole', fallback: true }); // a Cloud Foundry manifest, not Kubernetes
  });

  it('a manifest glob still wins at confidence 1', () => {
    expect(detection(modified('k8s/overlays/prod/patch.yaml', CONTAINER_HUNK))).toMatchObject({ analyzer: 'kubernetes', confidence: 1 });
  });
});
