import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runMain } from '../helpers/cli';
import { CORPUS_DIR } from '../helpers/test-server';

/**
 * `planwarden analyze` with no model and no --data-dir runs the checks in the command's own
 * process (no server, no store): the same report, gate and refusals as the local server, which
 * a --data-dir still starts. docs/ci.md.
 */

const SAMPLE_PLAN = 'resources/examples/azure-firewall-plan.json';
const CHILD = { timeout: 180_000 };

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'planwarden-cli-in-process-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/** The run's stdout with what differs between two runs by nature (job ids, report time) blanked. */
const comparable = (text: string) =>
  text.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>');

/** The same command in process (no flags) and on the local server (a fresh --data-dir). */
async function bothModes(args: string[]) {
  const inProcess = await runMain([...args, '--namespace', 'same']);
  const server = await runMain([...args, '--namespace', 'same', '--data-dir', await mkdtemp(join(work, 'data-'))]);
  return { inProcess, server };
}

describe('planwarden analyze, checks only, in process', CHILD, () => {
  it.each([
    ['a plan as markdown', [SAMPLE_PLAN, '--fail-on', 'medium']],
    ['a plan as SARIF', [SAMPLE_PLAN, '--format', 'sarif', '--fail-on', 'low']],
    ['a mixed diff as JSON', [join(CORPUS_DIR, 'diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'), '--format', 'json', '--fail-on', 'high']],
    ['a directory as JSON', [join(CORPUS_DIR, 'k8s-yaml'), '--format', 'json', '--fail-on', 'critical']],
  ])('%s: the report and the exit code are the local server’s', async (_name, args) => {
    const { inProcess, server } = await bothModes(['analyze', ...args]);
    expect(server.stderr).toMatch(/local engine; checks only/);
    expect(inProcess.stderr).toMatch(/local engine; checks only/);
    expect(inProcess.code, inProcess.stderr).toBe(server.code);
    expect(comparable(inProcess.stdout)).toBe(comparable(server.stdout));
    expect(inProcess.stdout.length).toBeGreaterThan(500);
  });

  it.each([
    ['an unknown analyzer', ['--analyzer', 'nope'], /answered 404: Unknown analyzer 'nope'/],
    ['a rule type the analyzer lacks', ['--analyzer', 'terraform', '--rule-type', 'nope'], /answered 422: rule_type 'nope' is not a rule variant/],
    ['a reserved namespace', ['--namespace', 'jobs'], /answered 422: namespace 'jobs' is reserved/],
  ])('%s is exit 2 with the message the server gives', async (_name, extra, message) => {
    const inProcess = await runMain(['analyze', SAMPLE_PLAN, ...extra]);
    const server = await runMain(['analyze', SAMPLE_PLAN, ...extra, '--data-dir', await mkdtemp(join(work, 'data-'))]);
    expect(inProcess.code).toBe(2);
    expect(server.code).toBe(2);
    expect(inProcess.stderr).toMatch(message);
    expect(server.stderr).toMatch(message);
  });
});
