import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors';
import { corpusFile, corpusFiles } from '../../../../tests/corpus';
import { expectCorpusUnits } from '../../../../tests/helpers/analyzer-testing';
import { githubActionsAnalyzer } from './index';
import { NO_PERMISSIONS_NOTE } from './workflow';

describe('github-actions analyzer', () => {
  it.each(corpusFiles('gha-workflow'))('%s: one unit per job with triggers and permissions as context', (rel) => {
    const text = corpusFile(rel).toString('utf8');
    const workflow = parse(text) as { jobs: Record<string, unknown>; permissions?: unknown };
    const jobIds = Object.keys(workflow.jobs);
    const units = expectCorpusUnits(githubActionsAnalyzer, rel, jobIds.length);
    expect(units.map((u) => u.name)).toEqual(jobIds.map((id) => `${rel}#${id}`));
    for (const unit of units) {
      const body = parse(unit.body) as { on: unknown; jobs: Record<string, unknown>; permissions?: unknown };
      expect(body.on).toBeDefined();
      expect(Object.keys(body.jobs)).toEqual([unit.metadata.job_id]);
      expect(body.permissions).toEqual(workflow.permissions);
      expect(unit.body.includes(NO_PERMISSIONS_NOTE)).toBe(workflow.permissions === undefined);
    }
    expect(githubActionsAnalyzer.sniff!(text)).toMatchObject({ kind: 'github-actions-workflow' });
  });

  it('records the triggers, e.g. pull_request_target', () => {
    const units = githubActionsAnalyzer.ingest!(corpusFile('gha-workflow/checkov-security-pull-request-target.yml').toString());
    expect(units[1].metadata).toMatchObject({ job_id: 'security', triggers: ['pull_request_target'], top_level_permissions: true });
  });

  it('refuses YAML that is not a workflow', () => {
    expect(() => githubActionsAnalyzer.ingest!('name: x\nruns:\n  using: node20\n')).toThrow(ValidationError);
    expect(githubActionsAnalyzer.sniff!('apiVersion: v1\nkind: Pod\n')).toBeNull();
  });
});
