import { describe, expect, it } from 'vitest';
import { buildReportModel, type ReportInput } from './model';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { BUILTIN_TEMPLATES, codeFence, mdCell, mdCode, mdText, renderReport, templatesDir, validateTemplateSource } from './render';

const HOSTILE_TITLE = '<script>alert(1)</script> | pipe ``` backticks ```';
const HOSTILE_EVIDENCE = ['acl = "public-read"', '``` closes the fence? <img src=x onerror=alert(1)>', '| a | b |'];

function buildInput(overrides: Partial<ReportInput> = {}): ReportInput {
  return {
    namespace: 'prod',
    generatedAt: '2025-06-01T12:00:00.000Z',
    includeSuppressed: false,
    resources: [
      buildResource({
        findings: [
          buildFinding(),
          buildFinding({
            rule_id: 'S3-009',
            severity: 'CRITICAL',
            title: HOSTILE_TITLE,
            evidence: HOSTILE_EVIDENCE,
            risk: '<b>bold</b>\n# heading\n- list',
            resource_address: 'aws_s3_bucket.logs|x',
          }),
          buildFinding({ rule_id: 'S3-ACK', severity: 'MEDIUM', status: 'acknowledged', title: 'Versioning off' }),
          buildFinding({ rule_id: 'S3-SUP', severity: 'LOW', status: 'suppressed', title: 'Suppressed one' }),
          buildFinding({ rule_id: 'S3-FP', severity: 'LOW', status: 'false_positive', title: 'False one' }),
        ],
      }),
      buildResource({
        hash: 'h-role',
        type: 'aws_iam_role',
        name: 'ci',
        action: 'update',
        findings: [buildFinding({ rule_id: 'NO-FINDINGS', severity: 'INFO', title: 'All clear', resource_address: 'aws_iam_role.ci' })],
      }),
    ],
    ...overrides,
  };
}

/** A Markdown document minus its fenced code blocks (fence of 3+ backticks, closed by the same). */
function withoutFencedBlocks(md: string): string {
  return md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '');
}

const FORMATS = ['markdown', 'markdown_light', 'html'] as const;

async function render(format: (typeof FORMATS)[number], overrides: Partial<ReportInput> = {}) {
  return renderReport(buildReportModel(buildInput(overrides)), { format });
}

/** Table rows of a Markdown document, each split on unescaped pipes. */
function markdownTableRows(md: string): string[][] {
  return md
    .split('\n')
    .filter((l) => l.startsWith('|'))
    .map((l) => l.split(/(?<!\\)\|/).slice(1, -1));
}

describe('renderReport with the built-in templates', () => {
  it.each(FORMATS)('%s shows severities, rule ids and addresses', async (format) => {
    const { content, contentType } = await render(format);
    expect(contentType).toBe(format === 'html' ? 'text/html; charset=utf-8' : 'text/markdown; charset=utf-8');
    for (const s of ['CRITICAL', 'HIGH', 'MEDIUM', 'S3-001', 'S3-009', 'S3-ACK', 'aws_s3_bucket.logs', 'prod']) {
      expect(content).toContain(s);
    }
  });

  it.each(FORMATS)('%s never lets hostile LLM strings through raw', async (format) => {
    const { content } = await render(format);
    // Markdown evidence sits verbatim in fenced blocks, where it is inert text.
    const live = format === 'html' ? content : withoutFencedBlocks(content);
    expect(live).not.toContain('<script>');
    expect(live).not.toContain('<img');
    expect(live).not.toContain('<b>');
    if (format === 'html') {
      expect(content).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(content).toContain('&lt;img src=x onerror=alert(1)&gt;');
    } else {
      expect(content).toContain('&lt;script&gt;alert(1)&lt;/script&gt; \\| pipe');
      // The findings table (header, rule, 3 rows): no cell split by an injected pipe.
      const rows = markdownTableRows(content).filter((r) => r.length > 2);
      expect(rows).toHaveLength(5);
      expect(new Set(rows.map((r) => r.length))).toEqual(new Set([format === 'markdown' ? 6 : 5]));
    }
  });

  it('fences Markdown evidence with a fence longer than any backtick run inside', async () => {
    const { content } = await render('markdown');
    expect(content).toContain('````\nacl = "public-read"\n``` closes the fence?');
    expect(content).toContain('| a | b |\n````');
    expect(content).toContain('\\# heading\n\\- list');
  });

  it.each(FORMATS)('%s hides suppressed and false_positive unless asked', async (format) => {
    const hidden = (await render(format)).content;
    expect(hidden).not.toContain('S3-SUP');
    expect(hidden).not.toContain('S3-FP');
    const shown = (await render(format, { includeSuppressed: true })).content;
    expect(shown).toContain('S3-SUP');
    expect(shown).toContain('S3-FP');
    expect(shown).toContain('False positive');
  });

  it.each(FORMATS)('%s shows acknowledged findings with a status badge', async (format) => {
    const { content } = await render(format);
    expect(content).toContain('S3-ACK');
    if (format === 'html') expect(content).toContain('<span class="badge">Acknowledged</span>');
    else if (format === 'markdown') expect(content).toContain('· _Acknowledged_');
    else expect(content).toMatch(/\| `S3-ACK` \|.*\| Acknowledged \|/);
  });

  it.each(FORMATS)('%s adds an Analyzer column only for multi-analyzer namespaces', async (format) => {
    const column = format === 'html' ? '<th>Analyzer</th>' : ' Analyzer |';
    expect((await render(format)).content).not.toContain(column);
    const multi = buildInput();
    const resources = [
      ...multi.resources,
      buildResource({
        hash: 'h-diff',
        type: 'file',
        name: 'main.tf',
        analyzer: 'codediff',
        findings: [buildFinding({ rule_id: 'DIFF-1', resource_address: 'main.tf' })],
      }),
    ];
    const { content } = await renderReport(buildReportModel({ ...multi, resources }), { format });
    expect(content).toContain(column);
    expect(content).toContain('codediff');
    if (format !== 'markdown_light') expect(content).toContain('Analyzer: codediff');
  });

  it.each(FORMATS)('%s notes a partial report when the quota was exceeded', async (format) => {
    expect((await render(format)).content).not.toContain('Partial report');
    expect((await render(format, { quota_exceeded: true })).content).toContain('Partial report');
  });

  it.each(['markdown', 'html'] as const)('%s lists NO-FINDINGS resources as clean', async (format) => {
    const { content } = await render(format);
    expect(content).not.toContain('NO-FINDINGS');
    expect(content).not.toContain('All clear');
    expect(content).toContain('Resources analysed with no findings');
    expect(content).toContain('aws_iam_role.ci');
  });

  it('markdown_light links the full report and the dashboard when set', async () => {
    const without = (await render('markdown_light')).content;
    expect(without).not.toContain('Open the full report');
    const { content } = await render('markdown_light', {
      report_html_url: 'https://pw.example/reports/tok',
      dashboard_url: 'https://pw.example/ns/prod',
    });
    expect(content).toContain('[Open the full report](<https://pw.example/reports/tok>)');
    expect(content).toContain('(<https://pw.example/ns/prod>)');
    expect(content).not.toContain('Risk'); // compact: no per-finding sections
  });

  it('renders a namespace without findings', async () => {
    const { content } = await render('markdown', { resources: [buildResource({ findings: [] })] });
    expect(content).toContain('No findings');
  });

  it('renders 10k findings as HTML', async () => {
    const findings = Array.from({ length: 10_000 }, (_, i) =>
      buildFinding({ rule_id: `R-${i}`, severity: (['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const)[i % 5], title: `${HOSTILE_TITLE} ${i}` }),
    );
    const { content } = await renderReport(buildReportModel(buildInput({ resources: [buildResource({ findings })] })), { format: 'html' });
    expect(content).toContain('id="finding-10000"');
    expect(content).not.toContain('<script>');
  });
});

describe('built-in template sources', () => {
  it('live in resources/templates unless PLANWARDEN_RESOURCES_DIR says otherwise', () => {
    const saved = process.env.PLANWARDEN_RESOURCES_DIR;
    try {
      delete process.env.PLANWARDEN_RESOURCES_DIR;
      expect(templatesDir().replace(/\\/g, '/')).toMatch(/\/resources\/templates\/?$/);
      process.env.PLANWARDEN_RESOURCES_DIR = '/opt/pw/resources';
      expect(templatesDir().replace(/\\/g, '/')).toBe('/opt/pw/resources/templates');
    } finally {
      if (saved === undefined) delete process.env.PLANWARDEN_RESOURCES_DIR;
      else process.env.PLANWARDEN_RESOURCES_DIR = saved;
    }
  });

  it('exports the three built-ins, each valid in the sandbox', async () => {
    expect(BUILTIN_TEMPLATES.map((t) => t.format)).toEqual(['markdown', 'markdown_light', 'html']);
    for (const t of BUILTIN_TEMPLATES) {
      expect(t.name).toMatch(/^Built-in /);
      await expect(validateTemplateSource(t.source, t.format)).resolves.toBeUndefined();
    }
  });
});

describe('Markdown escaping filters', () => {
  it('md_cell keeps a cell on one line and neutralises markup', () => {
    expect(mdCell('a | b\n<i>x</i> `c` *d* [e](f) & #1')).toBe('a \\| b &lt;i&gt;x&lt;/i&gt; \\`c\\` \\*d\\* \\[e\\](f) &amp; \\#1');
    expect(mdCell(null)).toBe('');
  });

  it('md_text escapes block markers at line starts', () => {
    expect(mdText('  # h\n> q\n1. one\n- item\n\n\n\nend  ')).toBe('\\# h\n&gt; q\n1\\. one\n\\- item\n\nend');
  });

  it('md_code picks a longer fence and pads backtick edges', () => {
    expect(mdCode('a.b')).toBe('`a.b`');
    expect(mdCode('x ``y`` z')).toBe('```x ``y`` z```');
    expect(mdCode('`edge')).toBe('`` `edge ``');
    expect(mdCode('a|b', true)).toBe('`a\\|b`');
    expect(mdCode('')).toBe('');
  });

  it('code_fence outlasts any backtick run and cleans the info string', () => {
    expect(codeFence('plain')).toBe('```\nplain\n```');
    expect(codeFence(['a', '`````'])).toBe('``````\na\n`````\n``````');
    expect(codeFence('x', 'hcl"><script>')).toBe('```hclscript\nx\n```');
  });
});
