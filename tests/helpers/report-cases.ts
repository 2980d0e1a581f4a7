import { buildFinding, buildResource } from './report-fixtures';
import type { ReportInput, ReportInputResource } from '../../engine/src/report/model';

/**
 * Report inputs that exercise every branch of the built-in templates (statuses, hostile strings,
 * multiple analyzers, links, job, quota, hidden findings, an empty namespace, many findings): the
 * compiled built-in renderers (html-report.ts, markdown-report.ts) are held to LiquidJS's output
 * over each.
 */
export const HOSTILE = `<script>alert('x')</script> & "quoted" | \`tick\``;

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

export const REPORT_CASES: [string, ReportInput][] = [
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
  [
    'Markdown syntax in every field',
    buildInput({
      namespace: '# ns | `x`',
      resources: [
        buildResource({
          name: 'b|`c`',
          action: 'delete | *x*',
          findings: [
            buildFinding({
              rule_id: 'R|1`',
              title: '*bold* _it_ [l](u) ~s~ #h',
              risk: '  # heading\r\n> quote\n1. one\n2) two\n- item\n+ plus\n= setext\n\n\n\nend  ',
              why_it_matters: '',
              suggested_next_step: '```\nfence\n```',
              evidence: ['```', '````inner````', 'a\r\nb', '` tick'],
              tags: ['`', ' spaced ', 'a|b'],
              confidence: 'LOW',
            }),
          ],
        }),
      ],
    }),
  ],
  [
    'resources that lack the model review, beyond those listed',
    buildInput({
      resources: Array.from({ length: 22 }, (_, r) => buildResource({ hash: `u${r}`, name: `u${r}|\``, lacks_model_review: true })),
    }),
  ],
  [
    'a few resources that lack the model review',
    buildInput({ resources: [buildResource({ lacks_model_review: true }), buildResource({ hash: 'h2', name: 'two', lacks_model_review: true })] }),
  ],
];
