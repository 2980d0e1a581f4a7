/**
 * Per-unit overhead (docs/decisions.md "Job runner costs"): the prompt is tokenised only when something reads the count
 * (Ollama's num_ctx, the plan-context budget), and the shortcuts give the same prompt as counting.
 */
import { describe, expect, it } from 'vitest';
import type { AnalysisUnit } from '../core/unit';
import { analyseUnit } from './analyse-unit';
import { contextLines } from './prompt-context';
import { countTokens } from './tokens';
import { LLM_BACKENDS, type LlmBackend, type LlmProvider, type LlmRequest } from './types';

const RULES = '# Rules\n\n## S3-001: Bucket must not be public\nSeverity: HIGH\n';
const UNIT: AnalysisUnit = {
  hash: 'b'.repeat(64),
  type: 'aws_s3_bucket',
  name: 'aws_s3_bucket.logs',
  action: 'create',
  body: 'resource "aws_s3_bucket" "logs" {\n  acl = "public-read"\n}',
  metadata: {},
};
const ANSWER = JSON.stringify({
  summary: 'A bucket.',
  findings: [
    {
      title: 'Public bucket',
      severity: 'HIGH',
      rule_id: 'S3-001',
      risk: 'r',
      why_it_matters: 'w',
      suggested_next_step: 's',
      confidence: 'HIGH',
      evidence: ['acl = "public-read"'],
      resource_address: 'aws_s3_bucket.logs',
      tags: [],
    },
  ],
});

/** A provider that answers at once and keeps the requests it got. */
function recordingProvider(backend: LlmBackend): { provider: LlmProvider; requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  const provider: LlmProvider = {
    backend,
    complete: async (request) => {
      requests.push(request);
      return { text: ANSWER, inputTokens: 10, outputTokens: 10, stopReason: 'stop' };
    },
  };
  return { provider, requests };
}

describe('prompt token counting', () => {
  it.each(LLM_BACKENDS)('%s: the count goes only to the backend that reads it', async (backend) => {
    const { provider, requests } = recordingProvider(backend);
    const settings = { maxAttempts: 1, backoffSeconds: 0, timeoutSeconds: 5, maxOutputTokens: 256 };
    await analyseUnit(provider, { model: 'm', rules: RULES, unit: UNIT, settings });
    expect(requests).toHaveLength(1);
    const [request] = requests;
    if (backend === 'ollama') {
      expect(request.promptTokens).toEqual({ system: countTokens(request.system), user: countTokens(request.user) });
    } else {
      expect(request.promptTokens).toBeUndefined();
    }
  });

  it('keeps the same companions as exact counting, whether or not the byte bound settles it', () => {
    const companion = (n: number, text: string) => ({ address: `aws_iam_policy.p${n}`, type: 'aws_iam_policy', action: 'create', values: { policy: text } });
    // Exact counting, as contextLines did before the byte-bound shortcut.
    const exact = (context: ReturnType<typeof companion>[], budget: number) => {
      let used = 0;
      return context
        .filter((c) => {
          const tokens = countTokens(`# ${JSON.stringify(c.address)} (${JSON.stringify(c.action)})\n${JSON.stringify(c.values)}`) + 1;
          if (used + tokens > budget) return false;
          used += tokens;
          return true;
        })
        .map((c) => c.address);
    };
    const shown = (lines: string[]) => [...lines.join('\n').matchAll(/^# "([^"]+)"/gm)].map((m) => m[1]);
    const cases = [
      { context: [companion(1, 'small'), companion(2, 'also small')], budget: 1_500, kept: 2 }, // fits on bytes alone
      { context: [companion(1, 'word '.repeat(400)), companion(2, 'x'), companion(3, 'word '.repeat(100))], budget: 500, kept: 2 }, // must count; the third is left out
      { context: [companion(1, 'é'.repeat(760)), companion(2, 'ok')], budget: 1_500, kept: 2 }, // multi-byte: over on bytes, fits counted
    ];
    for (const { context, budget, kept } of cases) {
      const lines = contextLines(context, budget);
      expect(shown(lines)).toEqual(exact(context, budget));
      expect(shown(lines)).toHaveLength(kept);
    }
  });
});
