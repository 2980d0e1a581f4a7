import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { compileBuiltinHtml, HTML_TEMPLATE_SHA256 } from './html-report';
import { buildReportModel, type ReportInput, type ReportInputResource } from './model';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { BUILTIN_TEMPLATES, renderBuiltinWithLiquid, renderReport } from './render';

const HTML_SOURCE = BUILTIN_TEMPLATES.find((t) => t.format === 'html')!.source;
const HOSTILE = `<script>alert('x')</script> & "quoted" | \`tick\``;

function buildInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return { namespace: 'prod', generatedAt: '2025-06-01T12:00:00.000Z', includeSuppressed: false, resources: [buildResource()], ...overrides };
}

const mixedResources: ReportInputResource[] = [
  buildResource({
    findings: [
      buildFinding(),
      buildFinding({ rule_id: 'S3-009', severity: 'CRITICAL', title: HOSTILE, evidence: [HOSTILE, '', 'line\nbreak'], risk: `${HOSTILE}\nsecond`, tags: [] }),
      buildFinding({ rule_id: 'S3-ACK', severity: 'MEDIUM', status: 'acknowledged', evidence: [], tags: ['a', HOSTILE, 'c'] }),
      buildFinding({ rule_id: 'S3-NR', severity: 'INFO', status: 'needs_review', resource_address: '' }),
      buildFinding({ rule_id: 'S3-SUP', severity: 'LOW', status: 'suppressed' }),
      buildFinding({ rule_id: 'S3-FP', severity: 'LOW', status: 'false_positive' }),
    ],
  }),
  buildResource({
    hash: 'h-role',
    type: 'aws_iam_role',
    name: `ci${HOSTILE}`,
    action: 'update',
    findings: [buildFinding({ rule_id: 'NO-FINDINGS', severity: 'INFO', resource_address: 'aws_iam_role.ci' })],
  }),
  buildResource({ hash: 'h-pend', type: 'aws_sqs_queue', name: 'q', summary: null, findings: [] }),
];

const CASES: [string, ReportInput][] = [
  ['minimal', buildInput()],
  ['mixed statuses, hostile strings, clean and pending', buildInput({ resources: mixedResources })],
  ['include_suppressed', buildInput({ resources: mixedResources, includeSuppressed: true })],
  [
    'multi-analyzer with links, job and quota',
    buildInput({
      namespace: `ns'"<&>`,
      resources: [
        ...mixedResources,
        buildResource({
          hash: 'h-diff',
          type: 'file',
          name: 'main.tf',
          analyzer: 'codediff',
          findings: [buildFinding({ rule_id: 'DIFF-1', resource_address: 'main.tf' })],
        }),
        buildResource({ hash: 'h-x', analyzer: null, name: 'x' }),
      ],
      report_html_url: 'https://pw.example/reports/a?b=1&c=2',
      dashboard_url: 'https://pw.example/d',
      quota_exceeded: true,
      job: { job_id: 'job-<1>', status: 'done' },
    }),
  ],
  ['only one link', buildInput({ dashboard_url: 'https://pw.example/d' })],
  ['no findings, some hidden', buildInput({ resources: [buildResource({ findings: [buildFinding({ status: 'suppressed' })] })] })],
  ['empty namespace', buildInput({ resources: [] })],
  [
    'many findings',
    buildInput({
      resources: Array.from({ length: 40 }, (_, r) =>
        buildResource({
          hash: `h${r}`,
          name: `b${r}`,
          analyzer: r % 2 ? 'terraform' : 'blackhole',
          findings: Array.from({ length: 5 }, (_, k) =>
            buildFinding({ rule_id: `R-${k}`, severity: (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const)[(r + k) % 5] }),
          ),
        }),
      ),
    }),
  ],
];

describe('compiled built-in HTML report', () => {
  it('mirrors the html.liquid that ships (update html-report.ts and its digest together with the template)', () => {
    expect(createHash('sha256').update(HTML_SOURCE, 'utf8').digest('hex')).toBe(HTML_TEMPLATE_SHA256);
    expect(compileBuiltinHtml(HTML_SOURCE)).not.toBeNull();
  });

  it.each(CASES)('writes exactly what LiquidJS writes: %s', (_name, input) => {
    const model = buildReportModel(input);
    expect(compileBuiltinHtml(HTML_SOURCE)!(model)).toBe(renderBuiltinWithLiquid(model, 'html'));
  });

  it('is what renderReport uses for the built-in html format', async () => {
    const model = buildReportModel(CASES[3][1]);
    expect((await renderReport(model, { format: 'html' })).content).toBe(renderBuiltinWithLiquid(model, 'html'));
  });

  it('refuses any other template, so an edited html.liquid falls back to LiquidJS', () => {
    expect(compileBuiltinHtml(`${HTML_SOURCE}\n`)).toBeNull();
    expect(compileBuiltinHtml('<p>{{ namespace }}</p>')).toBeNull();
  });
});
