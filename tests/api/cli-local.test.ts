import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIngestJob, WORKER_MIN_CHARS } from '../../engine/src/ingest/worker-pool';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { runBin as runBinIn, runMain } from '../helpers/cli';
import { CORPUS_DIR } from '../helpers/test-server';

/**
 * `planwarden analyze` with no model (the deterministic checks), on a directory, with a
 * baseline, with a model that fails, and exiting once its work is done: through the real bin
 * as a child process, in local mode. docs/ci.md.
 */

const SAMPLE_PLAN = 'resources/examples/azure-firewall-plan.json';
const SAMPLE_RULE = 'TF-AZURE-FIREWALL-THREAT-INTEL-OFF';
const OLLAMA = ['--backend', 'ollama', '--model', 'llama3.1:8b'];
const CHILD = { timeout: 180_000 };

/** A repository with one file of each analyzer, a dependency folder and a file its .gitignore excludes. */
const TREE: Record<string, string> = {
  'main.tf': 'resource "aws_s3_bucket" "logs" {\n  bucket = "my-logs"\n}\n',
  'ignored-secrets.tf': 'resource "aws_s3_bucket" "ignored_by_git" {\n  bucket = "nope"\n}\n',
  '.gitignore': 'ignored-secrets.tf\n',
  'node_modules/dep/Dockerfile': 'FROM node:latest\nUSER root\n',
  'README.md': '# A repository\n',
  'k8s/deploy.yaml': [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata:',
    '  name: web',
    'spec:',
    '  selector:',
    '    matchLabels: {app: web}',
    '  template:',
    '    metadata:',
    '      labels: {app: web}',
    '    spec:',
    '      containers:',
    '        - name: web',
    '          image: nginx:1.27',
    '          securityContext:',
    '            privileged: true',
    '',
  ].join('\n'),
  Dockerfile: 'FROM ubuntu:22.04\nRUN curl http://example.com/install.sh | sh\nUSER root\n',
  '.github/workflows/ci.yml': [
    'name: ci',
    'on: pull_request_target',
    'jobs:',
    '  build:',
    '    runs-on: ubuntu-latest',
    '    steps:',
    '      - uses: actions/checkout@v4',
    '        with:',
    '          ref: ${{ github.event.pull_request.head.sha }}',
    '',
  ].join('\n'),
};

let work: string;
let repo: string;
let fake: FakeProvider;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'planwarden-cli-local-'));
  repo = join(work, 'repo');
  for (const [path, text] of Object.entries(TREE)) {
    await mkdir(join(repo, path, '..'), { recursive: true });
    await writeFile(join(repo, path), text);
  }
  fake = await startFakeProvider();
});
afterAll(async () => {
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

const runBin = (args: string[], env: Record<string, string> = {}) => runBinIn(args, work, env);

interface JsonReport {
  open: Record<string, number>;
  findings: { rule_id: string; path: string | null; baseline: boolean; suppressed: boolean }[];
}

describe('planwarden analyze FILE with no model flags (child process)', CHILD, () => {
  it('runs the deterministic checks, prints their findings and exits 1 at --fail-on medium', async () => {
    const run = await runBin(['analyze', SAMPLE_PLAN, '--fail-on', 'medium']);
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^# Planwarden report/m);
    expect(run.stdout).toContain(SAMPLE_RULE);
    expect(run.stderr).toMatch(/local engine; checks only/);
    expect(run.stderr).toMatch(/5 open finding\(s\) at or above MEDIUM/);
    const lenient = await runMain(['analyze', SAMPLE_PLAN, '--fail-on', 'high']);
    expect(lenient.code, lenient.stderr).toBe(0);
  });

  it('refuses --backend without --model (exit 2)', async () => {
    const run = await runMain(['analyze', SAMPLE_PLAN, '--backend', 'ollama']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--backend and --model go together/);
  });
});

describe('planwarden analyze DIR', CHILD, () => {
  it('analyses every file an analyzer claims into one report grouped by analyzer, honouring .gitignore (child process)', async () => {
    const run = await runBin(['analyze', repo, '--fail-on', 'critical']);
    expect(run.code, run.stderr).toBe(1); // the privileged container is CRITICAL
    expect(run.stderr).toMatch(/4 file\(s\) to analyse \(.*terraform 1/);
    expect(run.stdout.match(/^# Planwarden report/gm)).toHaveLength(1);
    const groups = [...run.stdout.matchAll(/^### Analyzer: (\S+)/gm)].map((m) => m[1]);
    expect(groups).toEqual(['dockerfile', 'github-actions', 'kubernetes', 'terraform']); // the bare bucket has no object lock (CKV_AWS_143)
    expect(run.stdout).not.toContain('ignored');
    expect(run.stdout).not.toContain('node_modules');
    expect(run.stderr).toMatch(/^progress: \d+\/\d+ files read/m);
  });

  it('locates each finding in its file, and shows a progress bar on a terminal', async () => {
    const run = await runMain(['analyze', repo, '--format', 'json', '--fail-on', 'none'], {}, { tty: true });
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(run.stdout) as JsonReport;
    expect(new Set(doc.findings.map((f) => f.path))).toEqual(new Set(['Dockerfile', 'k8s/deploy.yaml', '.github/workflows/ci.yml', 'main.tf']));
    expect(run.stderr).toMatch(/Reading \[.*\] \d+\/\d+ files/);
  });

  it('exits 2 for a directory where no analyzer claims a file', async () => {
    const empty = join(work, 'docs-only');
    await mkdir(empty, { recursive: true });
    await writeFile(join(empty, 'notes.md'), '# notes\n');
    const run = await runMain(['analyze', empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no file in .* is one an analyzer reads/);
  });
});

describe('planwarden analyze --write-baseline / --baseline', CHILD, () => {
  it('a baseline written by one run makes the next one pass; only new findings would fail it (child process)', async () => {
    const baseline = join(work, 'baseline.json');
    const first = await runBin(['analyze', repo, '--fail-on', 'low', '--write-baseline', baseline]);
    expect(first.code, first.stderr).toBe(1);
    const written = JSON.parse(await readFile(baseline, 'utf8')) as { planwarden_baseline: number; findings: { rule_id: string }[] };
    expect(written.planwarden_baseline).toBe(1);
    expect(written.findings.length).toBeGreaterThan(3);

    const second = await runBin(['analyze', repo, '--fail-on', 'low', '--baseline', baseline, '--format', 'json']);
    expect(second.code, second.stderr).toBe(0);
    const doc = JSON.parse(second.stdout) as JsonReport;
    expect(doc.findings.every((f) => f.baseline && f.suppressed)).toBe(true);
    expect(second.stderr).toMatch(/accepted in the baseline/);

    // One accepted finding removed from the file: that one gates again.
    const trimmed = { ...written, findings: written.findings.slice(1) };
    await writeFile(baseline, JSON.stringify(trimmed));
    const third = await runMain(['analyze', repo, '--fail-on', 'low', '--baseline', baseline]);
    expect(third.code, third.stderr).toBe(1);
    expect(third.stderr).toMatch(/^1 open finding\(s\) at or above LOW/m);
  });

  it.each([
    ['not JSON', '{', /the baseline .* is not JSON/],
    ['another shape', JSON.stringify({ findings: [{ rule_id: 'X' }] }), /is not a Planwarden baseline: planwarden_baseline/],
  ])('a baseline file that is %s is exit 2 with the reason', async (_name, text, message) => {
    const file = join(work, 'bad-baseline.json');
    await writeFile(file, text);
    const run = await runMain(['analyze', SAMPLE_PLAN, '--baseline', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

describe('planwarden analyze with a model that fails (child process)', CHILD, () => {
  it("still reports the checks' findings, exits by them and names the model failure on stderr", async () => {
    fake.reset();
    fake.script(Array.from({ length: 40 }, () => ({ status: 500, message: 'the model fell over' })));
    const env = { OLLAMA_HOST: fake.ollamaHost, PLANWARDEN_ANALYSIS_LLM_MAX_ATTEMPTS: '1' };
    const run = await runBin(['analyze', SAMPLE_PLAN, ...OLLAMA, '--format', 'json', '--fail-on', 'medium', '--poll-interval', '20'], env);
    expect(run.code, run.stderr).toBe(1);
    expect(fake.requests.length).toBeGreaterThan(0);
    const doc = JSON.parse(run.stdout) as JsonReport;
    expect(doc.findings.filter((f) => f.rule_id === SAMPLE_RULE)).toHaveLength(5);
    expect(run.stderr).toMatch(/warning: the model \(ollama llama3\.1:8b\) failed, job \S+ failed: .*fell over/);
    fake.reset();
  });
});

describe('planwarden exits once its work is done', CHILD, () => {
  it('after an ingest on the worker pool, no ingest thread keeps the process alive', async () => {
    const plan = await readFile(join(CORPUS_DIR, 'tfplan-json/infracost-aws-modules-tf014-large.json'), 'utf8');
    expect(plan.length).toBeGreaterThanOrEqual(WORKER_MIN_CHARS);
    const held = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort' || r === 'Worker').length;
    const before = held();
    const result = await runIngestJob({ op: 'analyzer', analyzer: 'terraform', raw: plan });
    expect(result.units.length).toBeGreaterThan(0);
    expect(held()).toBe(before);
  });

  it('the bin exits after analysing a plan larger than the worker threshold (child process)', async () => {
    const run = await runBin(['analyze', join(CORPUS_DIR, 'tfplan-json/infracost-aws-modules-tf014-large.json'), '--fail-on', 'none', '--format', 'json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/unit\(s\) analysed/);
  });
});
