/**
 * The kubernetes analyzer's last-resort claim on a diff file (core/unit.ts `claimDiffFile`;
 * ingest/auto-route.ts tries it after globs and content sniffing). A modified manifest's hunks
 * are fragments: git's three lines of context rarely include `apiVersion`/`kind`, so a change deep
 * inside `kubernetes-manifests.yaml` used to reach the fallback analyzer.
 *
 * - 0.6 when the lines the diff shows, in any hunk and either image, include both an
 *   `apiVersion:` and a `kind: <Kind>` line (another hunk, or the pre-image, names the object);
 * - 0.5 when the file's name (or its pre-rename name) says it holds Kubernetes objects:
 *   `k8s`, `kubernetes`, `manifest` or `deployment` in a `.yaml`/`.yml` basename;
 * - null otherwise, for any file that is not YAML by its extension, and for a name hint whose
 *   lines show another format's telling keys (a CloudFormation `Type: AWS::…` or
 *   `AWSTemplateFormatVersion`, a workflow's `runs-on:`): `deployment.yaml` is a common name for
 *   those too.
 */
import type { DiffFile, SniffResult } from '../../core/unit';

const KIND = 'kubernetes-manifest';
const YAML_FILE = /\.ya?ml$/i;
const NAME_HINT = /(k8s|kubernetes|manifest|deployment)[^/]*\.ya?ml$/i;
const API_VERSION_LINE = /^\s*(?:-\s+)?["']?apiVersion["']?\s*:\s*["']?[\w.-]+(?:\/[\w.-]+)?["']?\s*(?:#.*)?$/;
const FOREIGN_LINE = /^\s*(?:-\s+)?(?:["']?Type["']?\s*:\s*["']?AWS::|["']?AWSTemplateFormatVersion["']?\s*:|["']?runs-on["']?\s*:)/;
const KIND_LINE = /^\s*(?:-\s+)?["']?kind["']?\s*:\s*["']?[A-Z]\w*["']?\s*(?:#.*)?$/;

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** See the module comment. Never throws. */
export function claimManifestDiffFile(file: DiffFile): SniffResult | null {
  const paths = [file.path, ...(file.oldPath ? [file.oldPath] : [])];
  if (!paths.some((p) => YAML_FILE.test(p))) return null;
  const lines = file.hunks.flatMap((h) => h.lines.map((l) => l.text));
  if (lines.some((l) => API_VERSION_LINE.test(l)) && lines.some((l) => KIND_LINE.test(l))) return { kind: KIND, confidence: 0.6 };
  if (paths.some((p) => NAME_HINT.test(basename(p))) && !lines.some((l) => FOREIGN_LINE.test(l))) return { kind: KIND, confidence: 0.5 };
  return null;
}
