import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { parseUnifiedDiff } from '../../core/diff';
import { packHunks } from './chunk';
import { guessFileKind } from './file-kind';
import { blackholeAnalyzer } from './index';
import { CORPUS } from '../../../../tests/corpus';

const read = (rel: string): string => readFileSync(fileURLToPath(new URL(rel, CORPUS)), 'utf8');

describe('blackhole analyzer', () => {
  it('is the fallback with a catch-all glob', () => {
    expect(blackholeAnalyzer).toMatchObject({ name: 'blackhole', isFallback: true, fileGlobs: ['**/*'], defaultRuleVariant: 'default' });
    expect(blackholeAnalyzer.ruleVariants).toEqual(['default']);
  });

  it('turns a small blob into one unit named after its path', () => {
    const text = read('dockerfile/k8s-examples-rethinkdb.Dockerfile');
    const [unit, ...rest] = blackholeAnalyzer.ingest!(text, { path: 'image/Dockerfile' });
    expect(rest).toHaveLength(0);
    expect(unit).toMatchObject({ type: 'dockerfile', name: 'image/Dockerfile', action: 'create', body: text.replace(/\n$/, '') });
    expect(blackholeAnalyzer.ingest!(text)[0]).toMatchObject({ name: 'input', type: 'dockerfile' });
  });

  it('splits a large blob into chunks of at most 400 lines with stable hashes', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join('\n');
    const units = blackholeAnalyzer.ingest!(text, { path: 'big.txt' });
    expect(units.map((u) => u.name)).toEqual(['big.txt (lines 1-400)', 'big.txt (lines 401-800)', 'big.txt (lines 801-1000)']);
    expect(units.map((u) => u.body.split('\n').length)).toEqual([400, 400, 200]);
    expect(units[2].metadata).toMatchObject({ chunk: 3, chunks: 3, start_line: 801, end_line: 1000 });
    expect(blackholeAnalyzer.ingest!(text, { path: 'big.txt' }).map((u) => u.hash)).toEqual(units.map((u) => u.hash));
  });

  it('rejects an empty blob', () => {
    expect(() => blackholeAnalyzer.ingest!(' \n')).toThrow(ValidationError);
  });

  it('turns each diff file into one unit with its hunks', () => {
    const files = parseUnifiedDiff(read('diff-mixed/msdemo-d91b7722f-cartservice-unprivileged-dockerfile-k8s.diff'));
    const units = files.flatMap((f) => blackholeAnalyzer.ingestDiffFile!(f));
    expect(units.map((u) => [u.name, u.type, u.action])).toEqual([
      ['kubernetes-manifests/cartservice.yaml', 'yaml', 'update'],
      ['src/cartservice/src/Dockerfile', 'dockerfile', 'update'],
    ]);
    expect(units[1].body).toContain('+ENV DOTNET_EnableDiagnostics=0');
    expect(units[1].body.split('\n')[1]).toBe('@@ -28,4 +28,5 @@ RUN GRPC_HEALTH_PROBE_VERSION=v0.4.11 && \\');
  });

  it('packs large diffs into groups of at most 400 rendered lines', () => {
    const lines = Array.from({ length: 900 }, (_, i) => `+l${i}`);
    const file = parseUnifiedDiff(
      ['diff --git a/a.md b/a.md', 'new file mode 100644', '--- /dev/null', '+++ b/a.md', '@@ -0,0 +1,900 @@', ...lines, ''].join('\n'),
    )[0];
    const groups = packHunks(file.hunks);
    expect(groups.map((g) => g.reduce((n, h) => n + h.lines.length + 1, 0))).toEqual([400, 400, 103]);
    expect(groups[1][0].newStart).toBe(400);
    const units = blackholeAnalyzer.ingestDiffFile!(file);
    expect(units.map((u) => u.name)).toEqual(['a.md (part 1 of 3)', 'a.md (part 2 of 3)', 'a.md (part 3 of 3)']);
  });

  it('guesses file kinds from paths and content', () => {
    expect(guessFileKind('.github/workflows/ci.yml')).toBe('github-workflow');
    expect(guessFileKind('k8s/deploy.yaml')).toBe('yaml');
    expect(guessFileKind('README.md')).toBe('markdown');
    expect(guessFileKind('src/Dockerfile')).toBe('dockerfile');
    expect(guessFileKind('LICENSE')).toBe('file');
    expect(guessFileKind(undefined, 'apiVersion: v1\nkind: Pod\n')).toBe('yaml');
    expect(guessFileKind(undefined)).toBe('file');
  });
});
