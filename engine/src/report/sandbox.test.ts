import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors';
import { buildReportModel, type ReportModel } from './model';
import { renderReport, TEMPLATE_LIMITS, validateTemplateSource, type ReportFormat } from './render';

function buildModel(): ReportModel {
  return buildReportModel({
    namespace: 'prod',
    generatedAt: '2025-06-01T12:00:00.000Z',
    includeSuppressed: false,
    resources: [
      {
        hash: 'h1',
        type: 'aws_s3_bucket',
        name: 'logs',
        action: 'create',
        analyzer: 'terraform',
        summary: 'A bucket.',
        findings: [
          {
            rule_id: 'S3-001',
            title: '<script>alert(1)</script>',
            severity: 'HIGH',
            confidence: 'HIGH',
            risk: 'r',
            why_it_matters: 'w',
            suggested_next_step: 's',
            evidence: ['e'],
            resource_address: 'aws_s3_bucket.logs',
            tags: [],
            status: 'open',
          },
        ],
      },
    ],
  });
}

function renderUser(source: string, format: ReportFormat = 'markdown') {
  return renderReport(buildModel(), { format, source });
}

async function expectRejected(source: string, format: ReportFormat = 'markdown'): Promise<ValidationError> {
  const err = await renderUser(source, format).then(
    (out) => {
      throw new Error(`rendered instead of failing: ${out.content.slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  expect((err as ValidationError).status).toBe(422);
  expect((err as ValidationError).message).toMatch(/^template failed to render: /);
  return err as ValidationError;
}

describe('user templates', () => {
  it('render with the model as variables and the escaping filters', async () => {
    const out = await renderUser('{% for f in findings %}{{ f.rule_id }}: {{ f.title | md_cell }} ({{ counts.total }}){% endfor %}');
    expect(out.content).toBe('S3-001: &lt;script&gt;alert(1)&lt;/script&gt; (1)');
    expect(out.contentType).toBe('text/markdown; charset=utf-8');
  });

  it('tolerate absent names in if / default, but not in output', async () => {
    const out = await renderUser('{% if nope %}x{% else %}y{% endif %}{{ nope | default: "z" }}');
    expect(out.content).toBe('yz');
    await expectRejected('{{ nope }}');
  });

  it('sanitise HTML output, even when the template forgot to escape', async () => {
    const source =
      '<!DOCTYPE html><html><head><style>p{color:red}</style><script>x()</script></head>' +
      '<body>{% for f in findings %}<p onclick="y()">{{ f.title }}</p>{% endfor %}<a href="javascript:z()">l</a></body></html>';
    const { content, contentType } = await renderUser(source, 'html');
    expect(contentType).toBe('text/html; charset=utf-8');
    expect(content.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(content).toContain('<style>p{color:red}</style>');
    expect(content).not.toMatch(/<script|onclick|javascript:/i);
  });

  it('reject syntax errors and unknown filters', async () => {
    await expectRejected('{% for f in findings %}');
    await expectRejected('{{ findings | no_such_filter }}');
    await expectRejected('{% nosuchtag %}');
  });

  it('reject a source over the parse limit', async () => {
    await expectRejected('x'.repeat(TEMPLATE_LIMITS.maxSourceChars + 1));
  });
});

describe('the sandbox', () => {
  it.each([
    '{{ findings.constructor }}',
    '{{ "x".constructor.constructor }}',
    '{{ findings.__proto__ }}',
    '{{ findings[0]["constructor"]["constructor"] }}',
    '{% assign k = "__proto__" %}{{ counts[k] }}',
    '{{ counts.hasOwnProperty }}',
  ])('refuses prototype access: %s', async (source) => {
    await expectRejected(source);
  });

  it('leaks nothing through prototype names that filters reach', async () => {
    const out = await renderUser('[{{ findings | map: "constructor" | join: "," }}]');
    expect(out.content).toBe('[]');
  });

  it.each(['{{ process.env }}', '{{ process.env.HOME }}', '{{ env }}', '{{ global.process }}', '{{ require }}'])(
    'has no process, environment or globals: %s',
    async (source) => {
      await expectRejected(source);
    },
  );

  it('stops an effectively endless loop', async () => {
    await expectRejected('{% for i in (1..100000000) %}{% for j in (1..100000000) %}x{% endfor %}{% endfor %}');
  });

  it('stops a long loop that stays under the allocation budget', async () => {
    await expectRejected('{% for i in (1..20000) %}{% for j in (1..20000) %}{% endfor %}{% endfor %}');
  });

  it('stops exponential strings built with append', async () => {
    await expectRejected('{% assign s = "x" %}{% for i in (1..64) %}{% assign s = s | append: s %}{% endfor %}{{ s }}');
  });

  it('stops exponential strings built with capture', async () => {
    const err = await expectRejected('{% assign s = "x" %}{% for i in (1..64) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s }}');
    expect(err.message).toContain('memory alloc limit exceeded');
  });

  it('caps the output size', async () => {
    const source = '{% assign s = "x" %}{% for i in (1..20) %}{% assign s = s | append: s %}{% endfor %}' + '{% for i in (1..100) %}{{ s }}{% endfor %}';
    const err = await expectRejected(source);
    expect(err.message).toContain('output exceeds');
  });

  it.each([
    "{% include '/etc/passwd' %}",
    "{% render '../../package.json' %}",
    "{% layout '/etc/passwd' %}x",
    "{% include 'resources/templates/markdown.liquid' %}",
    '{% render namespace %}',
  ])('reads no files: %s', async (source) => {
    const err = await expectRejected(source);
    expect(err.message).not.toContain('root:');
  });
});

describe('validateTemplateSource', () => {
  it('accepts a template that renders the sample report', async () => {
    await expect(validateTemplateSource('{{ namespace | escape }}: {{ counts.total }} {{ job.job_id }}', 'html')).resolves.toBeUndefined();
  });

  it('rejects broken or escaping templates with ValidationError', async () => {
    await expect(validateTemplateSource('{% if %}')).rejects.toBeInstanceOf(ValidationError);
    await expect(validateTemplateSource('{{ finding.title }}')).rejects.toBeInstanceOf(ValidationError);
    await expect(validateTemplateSource("{% include 'x' %}")).rejects.toBeInstanceOf(ValidationError);
  });
});
