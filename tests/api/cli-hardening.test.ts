import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Sarif from 'sarif';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../server/src/cli/duration';
import { terminalSafe } from '../../server/src/cli/terminal-safe';
import { FAKE_JOB_ID, fakeJob, fakeSarif, startFakePlanwardenApi, type FakeAnswers, type FakePlanwardenApi } from '../fakes/planwarden-api';
import { runBin, runMain } from '../helpers/cli';
import { useServerWithFakeProvider } from '../helpers/fake-server';
import { CORPUS_DIR, corpusFile } from '../helpers/test-server';

/**
 * The `planwarden` command against hostile or broken servers and inputs (docs/decisions.md H5):
 * control characters from a plan never reach the terminal, `--timeout` ends a wait on a job that
 * never finishes, and an answer of the wrong shape fails the command (exit 2) instead of
 * passing the gate. The real server (with the fake LLM) where the data flows through it; the
 * fake Planwarden API (tests/fakes/planwarden-api.ts) for answers the real one never gives.
 */

const SMALL_PLAN = 'tfplan-json/terraform-showjson-basic-delete.json';
const OLLAMA = ['--backend', 'ollama', '--model', 'llama3.1:8b'];
/** OSC retitle, clear screen, 8-bit CSI, right-to-left override. */
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e';
/** Any control or bidi character a terminal would act on (tab and line feed are layout). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const ESCAPED = '\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m\\u202e';

let work: string;
let hostilePlan: string;
let plainFile: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'planwarden-cli-hardening-'));
  // The corpus plan with a hostile resource name, address and values (the plan is valid JSON:
  // the sequences are \u escapes in the file and real control characters once parsed).
  const plan = JSON.parse(corpusFile(SMALL_PLAN).toString('utf8')) as {
    resource_changes: { address: string; name: string; change: { after: Record<string, unknown> | null } }[];
  };
  for (const rc of plan.resource_changes) {
    rc.name = `${rc.name}${HOSTILE}`;
    rc.address = `${rc.address}${HOSTILE}`;
    if (rc.change.after) rc.change.after.ami = `ami-${HOSTILE}`;
  }
  hostilePlan = join(work, `hostile${'\u001b[2J'}.json`);
  await writeFile(hostilePlan, JSON.stringify(plan, null, 2));
  plainFile = join(CORPUS_DIR, SMALL_PLAN);
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('terminalSafe', () => {
  it('escapes C0, DEL, C1 and bidi controls visibly, keeps layout, and leaves JSON meaning unchanged', () => {
    expect(terminalSafe(`a${HOSTILE}\u007f\u2066b`)).toBe(`a${ESCAPED}\\u007f\\u2066b`);
    expect(terminalSafe('x\n\ty\r\nz\rw')).toBe('x\n\ty\r\nz\\rw');
    expect(terminalSafe('x\n\ty\r\n', 'line')).toBe('x\\n\ty\\r\\n');
    const json = JSON.stringify({ name: `n${HOSTILE}\n` }, null, 2);
    expect(terminalSafe(json)).not.toMatch(CONTROL);
    expect(JSON.parse(terminalSafe(json))).toEqual({ name: `n${HOSTILE}\n` });
  });
});

describe('control characters from the plan and the server never reach stdout or stderr', () => {
  const env = useServerWithFakeProvider({
    adjust: (config) => {
      config.server.sync_analysis_max_units = 0;
    },
  });
  const args = (format: string) => [
    'analyze',
    hostilePlan,
    '--server',
    env.server.url,
    ...OLLAMA,
    '--format',
    format,
    '--fail-on',
    'none',
    '--poll-interval',
    '20',
  ];

  it('markdown report and progress lines show the sequences escaped', async () => {
    const run = await runMain(args('markdown'));
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toMatch(CONTROL);
    expect(run.stdout).toContain(ESCAPED); // the resource name, visibly
    expect(run.stderr).toMatch(/^progress: \d+\/2 units analysed \(test_instance\.\S+\\u001b\]0;pwned/m);
    expect(run.stderr).toContain('hostile\\u001b[2J.json');
  });

  it('json and sarif carry the names losslessly as JSON escapes', async () => {
    for (const format of ['json', 'sarif']) {
      const run = await runMain(args(format));
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toMatch(CONTROL);
      expect(run.stdout).not.toContain('\\\\u'); // escaped once, not twice
      const doc = JSON.parse(run.stdout) as { findings?: { resource_address: string }[] } & Partial<Sarif.Log>;
      const addresses = doc.findings?.map((f) => f.resource_address) ?? doc.runs![0].results!.map((r) => String(r.properties!.resource_address));
      expect(addresses.length).toBeGreaterThan(0);
      for (const address of addresses) expect(address).toContain(HOSTILE);
    }
  });

  it('the progress bar on a terminal shows the resource escaped', async () => {
    const run = await runMain(args('json'), {}, { tty: true });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('Analysing [');
    expect(run.stderr).toContain('\\u202e');
    for (const raw of ['\u001b]', '\u001b[2J', '\u0007', '\u009b', '\u202e']) expect(run.stderr).not.toContain(raw);
  });
});

describe('against a fake Planwarden API', () => {
  let api: FakePlanwardenApi;
  beforeAll(async () => {
    api = await startFakePlanwardenApi();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => api.reset());
  const analyze = (...more: string[]) => runMain(['analyze', plainFile, '--server', api.url, ...OLLAMA, '--poll-interval', '20', ...more]);

  it('a valid run gates as before (the fake is well-formed)', async () => {
    expect((await analyze('--fail-on', 'high')).code).toBe(1);
    const lenient = await analyze('--fail-on', 'critical', '--format', 'sarif');
    expect(lenient.code, lenient.stderr).toBe(0);
    expect(JSON.parse(lenient.stdout)).toMatchObject({ version: '2.1.0', runs: [{ tool: { driver: { name: 'Planwarden' } } }] });
  });

  it('error details, job errors and markdown from the server are escaped', async () => {
    const cases: [Partial<FakeAnswers>, string[]][] = [
      [{ analyze: { status: 400, json: { detail: `bad model${HOSTILE}\n::error::forged` } } }, []],
      [{ job: { json: fakeJob({ status: 'failed', error: `provider said${HOSTILE}` }) } }, []],
      [{ markdown: { text: `# Report\n\naws_s3_bucket.x${HOSTILE}\n`, type: 'text/markdown' } }, ['--fail-on', 'none']],
    ];
    for (const [answers, more] of cases) {
      api.reset();
      Object.assign(api.answers, answers);
      const run = await analyze(...more);
      expect(run.stdout + run.stderr).not.toMatch(CONTROL);
      expect(run.stdout + run.stderr).toContain(ESCAPED);
      expect(run.stderr).not.toMatch(/^::error::/m); // a line break in a field starts no line of its own
    }
  });

  it('a usage error echoing a hostile argument is escaped', async () => {
    const run = await runMain(['analyze', plainFile, ...OLLAMA, '--format', `pdf${HOSTILE}`]);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(CONTROL);
    expect(run.stderr).toContain('--format');
  });

  describe('--timeout', () => {
    it('gives up on a job that never finishes, naming it, with exit 2', async () => {
      api.answers.job = { json: fakeJob({ status: 'running', processed_count: 0, total_count: 3 }) };
      const started = Date.now();
      const run = await analyze('--timeout', '1s');
      const elapsed = Date.now() - started;
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`planwarden: timed out after 1s (--timeout) waiting for job ${FAKE_JOB_ID} (still running)`);
      expect(run.stdout).toBe('');
      expect(api.requests.filter((r) => r === `GET /api/v1/jobs/${FAKE_JOB_ID}`).length).toBeGreaterThan(1);
      expect(elapsed).toBeGreaterThanOrEqual(950);
      expect(elapsed).toBeLessThan(5000);
    });

    it.each([
      ['the analysis request', { analyze: 'hang' }, 'the server to accept the analysis'],
      ['a job request', { job: 'hang' }, `job ${FAKE_JOB_ID}`],
      ['the report request', { sarif: 'hang' }, `the report of job ${FAKE_JOB_ID}`],
    ] as [string, Partial<FakeAnswers>, string][])('ends a wait for %s the server never answers', async (_name, answers, what) => {
      Object.assign(api.answers, answers);
      const run = await analyze('--timeout', '300ms');
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`timed out after 300ms (--timeout) waiting for ${what}`);
    });

    it('the bin exits 2 on the timeout and leaves nothing running', { timeout: 120_000 }, async () => {
      api.answers.job = { json: fakeJob({ status: 'queued', processed_count: 0 }) };
      const run = await runBin(['analyze', plainFile, '--server', api.url, ...OLLAMA, '--timeout', '1'], work);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`waiting for job ${FAKE_JOB_ID} (still queued)`);
    });

    it('accepts seconds or a unit, defaults to 30m, and refuses anything else', async () => {
      expect([parseDuration('90'), parseDuration('90s'), parseDuration('10m'), parseDuration('1h'), parseDuration('500ms')]).toEqual([
        90_000, 90_000, 600_000, 3_600_000, 500,
      ]);
      expect(['0', '0s', '-5', '1.5s', '10x', 's', '', '25h', '1d'].map(parseDuration)).toEqual(Array(9).fill(null));
      expect([formatDuration(1_800_000), formatDuration(90_000), formatDuration(1_500)]).toEqual(['30m', '90s', '1500ms']);
      const help = await runMain(['analyze', '--help']);
      expect(help.stdout).toMatch(/--timeout <duration>[\s\S]*default:\s+30m/);
      for (const bad of ['0', '1.5s', '10x', '25h']) {
        const run = await analyze('--timeout', bad);
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(/--timeout <duration>' argument .* is invalid/);
      }
      expect(api.requests).toEqual([]);
    });
  });

  describe('an answer that does not parse or validate is exit 2, never a pass', () => {
    const OPEN_HIGH = { severity: 'HIGH', status: 'open', resource_address: 'aws_s3_bucket.logs' };
    it.each([
      [
        'analysis answer not JSON',
        { analyze: { status: 202, text: '<html>busy</html>', type: 'text/html' } },
        /POST \/\S+\/analyze\/auto: the server's answer is not JSON/,
      ],
      ['analysis answer without job_id', { analyze: { status: 202, json: { status: 'queued' } } }, /not a valid analysis answer: job_id: /],
      ['job not JSON', { job: { text: '{"job_id":' } }, /GET \/jobs\/job-fake-1: the server's answer is not JSON/],
      ['job with an unknown status', { job: { json: fakeJob({ status: 'finished' }) } }, /not a valid job: status: /],
      ['job with a count of the wrong type', { job: { json: fakeJob({ processed_count: '1' }) } }, /not a valid job: processed_count: /],
      ['another job', { job: { json: fakeJob({ job_id: 'job-other' }) } }, /answered with another job \(job-other\)/],
      ['SARIF not JSON', { sarif: { text: 'Internal error' } }, /GET \/\S+\/report: the server's answer is not JSON/],
      ['SARIF not an object', { sarif: { json: null } }, /not a valid SARIF report: \(top level\): /],
      ['SARIF without runs', { sarif: { json: { version: '2.1.0', runs: [] } } }, /not a valid SARIF report: runs: /],
      ['SARIF run without results', { sarif: { json: { version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } } }] } } }, /runs\[0\]\.results: /],
      ['SARIF of another version', { sarif: { json: { ...fakeSarif(), version: '2.0.0' } } }, /version: /],
      [
        'an unknown severity',
        { sarif: { json: fakeSarif({ properties: { ...OPEN_HIGH, severity: 'SEVERE' } }) } },
        /runs\[0\]\.results\[0\]\.properties\.severity: /,
      ],
      [
        'an unknown triage status',
        { sarif: { json: fakeSarif({ properties: { ...OPEN_HIGH, status: 'wontfix' } }) } },
        /runs\[0\]\.results\[0\]\.properties\.status: /,
      ],
      ['a result without properties', { sarif: { json: fakeSarif({ properties: null }) } }, /runs\[0\]\.results\[0\]\.properties: /],
      ['a result without a rule id', { sarif: { json: fakeSarif({ ruleId: 7 }) } }, /runs\[0\]\.results\[0\]\.ruleId: /],
    ] as [string, Partial<FakeAnswers>, RegExp][])('%s', async (_name, answers, message) => {
      Object.assign(api.answers, answers);
      for (const format of ['markdown', 'json']) {
        const run = await analyze('--fail-on', 'low', '--format', format, '--timeout', '5s');
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(message);
        expect(run.stdout).toBe('');
      }
    });
  });
});
