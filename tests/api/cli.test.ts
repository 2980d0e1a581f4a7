import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Sarif from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { REPO, runBin as runBinIn, runMain } from '../helpers/cli';
import { sarifSchemaErrors } from '../helpers/sarif-schema';
import { CORPUS_DIR, corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

/**
 * The `planwarden` command (issue 17): as a real child process through server/bin/planwarden.js
 * and in-process through `main`, against a started server and in local mode, with the fake LLM.
 * Hostile answers, --timeout and control characters: cli-hardening.test.ts.
 */
const SMALL_PLAN = 'tfplan-json/terraform-showjson-basic-delete.json'; // 2 resource changes: inline
const LARGE_PLAN = 'tfplan-json/tfcompliance-aws-deletes-drift-issue522.json'; // 15: a queued job
const DIFF = 'diff-tf/tf-aws-vpc-802d5f1-vpce-security-group.diff';
const OLLAMA = ['--backend', 'ollama', '--model', 'llama3.1:8b'];

let fake: FakeProvider;
let server: TestServer;
let keyed: TestServer;
let work: string;

beforeAll(async () => {
  fake = await startFakeProvider();
  server = await startTestServer({ fake });
  keyed = await startTestServer({ fake, overrides: { auth: { api_key: 'cli-test-key', enabled: true } } });
  work = await mkdtemp(join(tmpdir(), 'planwarden-cli-test-'));
});
afterAll(async () => {
  await server.close();
  await keyed.close();
  await fake.close();
  await rm(work, { recursive: true, force: true });
});

const runBin = (args: string[], env: Record<string, string> = {}) => runBinIn(args, work, env);

const corpusArg = (file: string) => join(CORPUS_DIR, file);

// A child process rebuilds the compiled command first when a source changed: seconds on a busy machine.
const CHILD = { timeout: 120_000 };

describe('planwarden analyze --server (child process)', CHILD, () => {
  it('writes a valid SARIF log, locates plan results in the plan file, and exits 1 on a HIGH finding with --fail-on high', async () => {
    const run = await runBin([
      'analyze',
      corpusArg(SMALL_PLAN),
      '--server',
      server.url,
      ...OLLAMA,
      '--format',
      'sarif',
      '--fail-on',
      'high',
      '--namespace',
      'cli-sarif',
    ]);
    expect(run.code).toBe(1);
    const log = JSON.parse(run.stdout) as Sarif.Log;
    expect(sarifSchemaErrors(log)).toEqual([]);
    const results = log.runs[0].results!;
    expect(results).toHaveLength(2);
    const plan = corpusFile(SMALL_PLAN).toString('utf8').split('\n');
    for (const r of results) {
      const physical = r.locations![0].physicalLocation!;
      expect(physical.artifactLocation!.uri).toBe(`tests/corpus/${SMALL_PLAN}`);
      expect(plan[physical.region!.startLine! - 1]).toContain(`"address": "${String(r.properties!.resource_address)}"`);
    }
    expect(run.stderr).toMatch(/2 open finding\(s\) at or above HIGH/);
  });

  it('exits 0 when nothing open is at or above --fail-on (critical, none)', async () => {
    for (const failOn of ['critical', 'none']) {
      const run = await runMain(['analyze', corpusArg(SMALL_PLAN), '--server', server.url, ...OLLAMA, '--fail-on', failOn, '--format', 'json']);
      expect(run.code, run.stderr).toBe(0);
      const doc = JSON.parse(run.stdout) as { failed: boolean; open: Record<string, number>; findings: unknown[] };
      expect(doc).toMatchObject({ failed: false, open: { HIGH: 2 } });
      expect(doc.findings).toHaveLength(2);
    }
  });

  it('shows plain progress lines on a non-terminal while polling a queued job, then the markdown report', async () => {
    const run = await runBin(['analyze', corpusArg(LARGE_PLAN), '--server', server.url, ...OLLAMA, '--poll-interval', '20', '--fail-on', 'none']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^job \S+ queued$/m);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('progress: '));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toMatch(/^progress: 15\/15 units analysed/);
    expect(run.stderr).not.toContain('\u001b['); // no terminal control sequences
    expect(run.stdout).toContain('aws_');
    expect(run.stdout).toMatch(/^#/m);
  });

  it('stops gating on a finding once it is triaged false_positive (and SARIF carries the suppression)', async () => {
    const ns = 'cli-triage';
    const first = await runMain([
      'analyze',
      corpusArg(SMALL_PLAN),
      '--server',
      server.url,
      ...OLLAMA,
      '--namespace',
      ns,
      '--format',
      'json',
      '--fail-on',
      'high',
    ]);
    expect(first.code).toBe(1);
    const { findings } = JSON.parse(first.stdout) as { findings: { resource_hash: string; rule_id: string }[] };
    for (const f of findings) {
      const res = await server.api(`/findings/${f.resource_hash}/${encodeURIComponent(f.rule_id)}`, { method: 'PATCH', json: { status: 'false_positive' } });
      expect(res.status).toBe(200);
    }
    const output = join(work, 'triaged.sarif');
    const again = await runMain([
      'analyze',
      corpusArg(SMALL_PLAN),
      '--server',
      server.url,
      ...OLLAMA,
      '--namespace',
      ns,
      '--format',
      'sarif',
      '--output',
      output,
      '--fail-on',
      'low',
    ]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe('');
    const log = JSON.parse(await readFile(output, 'utf8')) as Sarif.Log;
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].results!.every((r) => r.suppressions?.[0]?.status === 'accepted')).toBe(true);
  });

  it("takes the API key from PLANWARDEN_API_KEY and exits 2 with the server's message when it is wrong", async () => {
    const ok = await runMain(['analyze', corpusArg(SMALL_PLAN), '--server', keyed.url, ...OLLAMA, '--fail-on', 'none'], { PLANWARDEN_API_KEY: 'cli-test-key' });
    expect(ok.code, ok.stderr).toBe(0);
    const bad = await runBin(['analyze', corpusArg(SMALL_PLAN), '--server', keyed.url, ...OLLAMA], { PLANWARDEN_API_KEY: 'wrong' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/answered 401/);
    expect(bad.stdout).toBe('');
  });

  it('sends the provider key from OPENAI_API_KEY, never from the command line', async () => {
    fake.reset();
    const plan = join(work, 'openai-plan.json');
    await writeFile(plan, corpusFile('tfplan-json/terraform-showjson-drift.json'));
    const run = await runMain(['analyze', plan, '--server', server.url, '--backend', 'openai', '--model', 'gpt-4o-mini', '--fail-on', 'none'], {
      OPENAI_API_KEY: 'sk-from-env',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(JSON.stringify(fake.requests[0].headers)).toContain('sk-from-env');
  });
});

describe('planwarden usage, input and service errors exit 2', () => {
  it.each([
    ['--model without --backend', ['analyze', corpusArg(SMALL_PLAN), '--model', 'm'], /--backend and --model go together/],
    ['an unknown --fail-on', ['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--fail-on', 'severe'], /--fail-on/],
    ['an unknown --format', ['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--format', 'pdf'], /--format/],
    [
      'an unreadable file',
      ['analyze', join(REPO, 'no-such-plan.json'), ...OLLAMA, '--server', 'http://127.0.0.1:9'],
      /cannot read .*no-such-plan.json: ENOENT/,
    ],
    ['an unreachable server', ['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--server', 'http://127.0.0.1:9'], /cannot reach http:\/\/127\.0\.0\.1:9/],
    [
      '--data-dir with --server',
      ['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--server', 'http://127.0.0.1:9', '--data-dir', '/tmp/x'],
      /--data-dir is for local mode/,
    ],
  ])('%s', async (_name, args, message) => {
    const run = await runMain(args as string[]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message as RegExp);
  });

  it('a model the server does not allow (400) is exit 2 with the detail', async () => {
    const run = await runMain(['analyze', corpusArg(SMALL_PLAN), '--server', server.url, '--backend', 'ollama', '--model', 'not-a-model']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/answered 400: .*allowed-models catalogue/);
  });
});

describe('planwarden analyze in local mode (child process, own engine)', CHILD, () => {
  it('analyses a corpus plan on a throwaway data dir and gates on --fail-on', async () => {
    const env = { OLLAMA_HOST: fake.ollamaHost };
    const out = join(work, 'local.sarif');
    const run = await runBin(
      ['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--format', 'sarif', '--output', out, '--fail-on', 'high', '--poll-interval', '20'],
      env,
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toMatch(/local engine/);
    expect(run.stderr).toMatch(/^progress: 2\/2 units analysed/m);
    const log = JSON.parse(await readFile(out, 'utf8')) as Sarif.Log;
    expect(sarifSchemaErrors(log)).toEqual([]);
    expect(log.runs[0].results).toHaveLength(2);
    const lenient = await runBin(['analyze', corpusArg(SMALL_PLAN), ...OLLAMA, '--fail-on', 'critical', '--poll-interval', '20'], env);
    expect(lenient.code, lenient.stderr).toBe(0);
  });

  it('locates diff findings in their .tf files and keeps a given --data-dir for the next run', async () => {
    const dataDir = join(work, 'data');
    const env = { OLLAMA_HOST: fake.ollamaHost };
    const args = ['analyze', corpusArg(DIFF), ...OLLAMA, '--data-dir', dataDir, '--format', 'json', '--fail-on', 'none', '--poll-interval', '20'];
    fake.reset();
    const first = await runMain(args, env);
    expect(first.code, first.stderr).toBe(0);
    const calls = fake.requests.length;
    expect(calls).toBeGreaterThan(0);
    const doc = JSON.parse(first.stdout) as { findings: { path: string | null; line: number | null }[] };
    expect(doc.findings.some((f) => f.path === 'modules/vpc-endpoints/main.tf' && (f.line ?? 0) > 1)).toBe(true);
    const second = await runMain(args, env);
    expect(second.code, second.stderr).toBe(0);
    expect(fake.requests.length).toBe(calls); // already analysed in that data dir: no new LLM call
  });

  it('asks for the provider key variable when the backend needs one and none is set', async () => {
    const run = await runMain(['analyze', corpusArg(SMALL_PLAN), '--backend', 'openai', '--model', 'gpt-4o-mini'], { OPENAI_BASE_URL: fake.openaiBaseUrl });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/set OPENAI_API_KEY/);
  });
});
