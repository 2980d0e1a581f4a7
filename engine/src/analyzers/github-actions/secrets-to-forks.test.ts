/**
 * GHA-SECRETS-TO-FORKS (resources/rules/github-actions/default.md) on `pull_request_target`,
 * `issue_comment` and `workflow_run` jobs: a job that runs only the base branch's code with a
 * read-only token is not a finding (GitHub's "Preventing pwn requests"); a job that takes the pull
 * request's code while holding a secret or a write token is.
 */
import { describe, expect, it } from 'vitest';
import { runChecks } from '../../checks/run-checks';
import { loadBuiltinRuleset } from '../../rules/ruleset';
import { selectRules } from '../../rules/select';
import { githubActionsAnalyzer } from './index';

const RULE = 'GHA-SECRETS-TO-FORKS';
const SHA = '11bd71901bbe5b1630ceea73d27597364c9af683';

/** Rule ids the checks find on the one job of `workflow`. */
function found(workflow: string): string[] {
  const [unit] = githubActionsAnalyzer.ingest!(workflow, { path: '.github/workflows/pr.yml' });
  return runChecks(selectRules(loadBuiltinRuleset('github-actions', 'default'), unit).rules, unit).map((m) => m.rule.rule_id);
}

/** A one-job workflow: `on`, optional workflow `permissions` lines, then the job's lines (indented under it). */
function workflow(on: string, permissions: readonly string[], job: readonly string[]): string {
  return [`on: ${on}`, ...permissions, 'jobs:', '  job:', '    runs-on: ubuntu-latest', ...job.map((l) => `    ${l}`), ''].join('\n');
}

const BASE_CHECKOUT = ['steps:', `  - uses: actions/checkout@${SHA}`];
const SECRET_STEP = ['  - run: ./scripts/label.sh', '    env:', '      LABEL_TOKEN: ${{ secrets.LABEL_TOKEN }}'];
const headCheckout = (ref: string): string[] => [
  'steps:',
  `  - uses: actions/checkout@${SHA}`,
  '    with:',
  `      ref: ${ref}`,
  '  - run: npm ci && npm test',
];

describe('GHA-SECRETS-TO-FORKS', () => {
  it.each([
    ['workflow permissions all read', ['permissions:', '  contents: read', '  pull-requests: read'], []],
    ['workflow permissions read-all', ['permissions: read-all'], []],
    ['job permissions {}', [], ['permissions: {}']],
    ['job permissions narrower than a write-all workflow', ['permissions: write-all'], ['permissions:', '  contents: read']],
  ])('not on a pull_request_target job that checks out no pull-request code, %s', (_, perms, jobPerms) => {
    expect(found(workflow('pull_request_target', perms, [...jobPerms, ...BASE_CHECKOUT, ...SECRET_STEP]))).not.toContain(RULE);
  });

  it('not for the automatic secrets.GITHUB_TOKEN alone (the token is judged by GHA-EXCESSIVE-PERMISSIONS)', () => {
    const job = ['steps:', `  - uses: amannn/action-semantic-pull-request@${SHA}`, '    env:', '      GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}'];
    const ids = found(workflow('pull_request_target', [], job));
    expect(ids).not.toContain(RULE);
    expect(ids).toContain('GHA-EXCESSIVE-PERMISSIONS');
  });

  it.each([
    '${{ github.event.pull_request.head.sha }}',
    '${{ github.event.pull_request.head.ref }}',
    '${{ github.head_ref }}',
    'refs/pull/${{ github.event.pull_request.number }}/merge',
  ])('when the pull request is checked out (ref %s) with a secret, even with a read-only token', (ref) => {
    const ids = found(workflow('pull_request_target', ['permissions:', '  contents: read'], [...headCheckout(ref), ...SECRET_STEP]));
    expect(ids).toContain(RULE);
    expect(ids).toContain('GHA-PRT-UNTRUSTED-CHECKOUT');
  });

  it('when the pull request is checked out with a write token and no secret (actions/checkout keeps the token)', () => {
    expect(
      found(workflow('pull_request_target', [], ['permissions:', '  contents: write', ...headCheckout('${{ github.event.pull_request.head.sha }}')])),
    ).toContain(RULE);
  });

  it('when a secret meets a token that is not read-only, or code the unit does not show', () => {
    expect(found(workflow('pull_request_target', [], [...BASE_CHECKOUT, ...SECRET_STEP]))).toContain(RULE); // repository default token
    expect(found(workflow('pull_request_target', ['permissions:', '  contents: read', '  id-token: write'], [...BASE_CHECKOUT, ...SECRET_STEP]))).toContain(
      RULE,
    );
    const reusable = [
      'on: pull_request_target',
      'permissions:',
      '  contents: read',
      'jobs:',
      '  scan:',
      '    uses: ./.github/workflows/scan.yml',
      '    secrets: inherit',
      '',
    ].join('\n');
    expect(found(reusable)).toContain(RULE);
  });

  it('on issue_comment with gh pr checkout and on workflow_run with downloaded artifacts', () => {
    const comment = [
      'steps:',
      `  - uses: actions/checkout@${SHA}`,
      '  - run: gh pr checkout ${{ github.event.issue.number }} && make test',
      ...SECRET_STEP.slice(0),
    ];
    expect(found(workflow('issue_comment', ['permissions: read-all'], comment))).toContain(RULE);
    const artifacts = ['steps:', `  - uses: actions/download-artifact@${SHA}`, ...SECRET_STEP];
    expect(found(workflow('workflow_run', ['permissions: read-all'], artifacts))).toContain(RULE);
  });

  it('never on pull_request, which gives forks neither secrets nor a write token', () => {
    expect(found(workflow('pull_request', [], [...headCheckout('${{ github.event.pull_request.head.sha }}'), ...SECRET_STEP]))).not.toContain(RULE);
  });
});
