/**
 * Item 6: the built-in HTML report of 10k findings. Figures: buildReportModel and renderReport
 * times, beside JSON.stringify of the same model and the LiquidJS rendering of the same
 * template (baselines, same run); and, for information, a seeded copy of the built-in rendered as
 * an org template (sandboxed LiquidJS + sanitize-html, 3 s render budget).
 */
import { buildReportModel, type ReportInput, type ReportInputFinding } from '../engine/src/report/model';
import { BUILTIN_TEMPLATES, renderBuiltinWithLiquid, renderReport } from '../engine/src/report/render';
import { median, ms, timed, type BenchRow } from './lib';

const FINDINGS = 10_000;
const REPS = 5;
const SEVERITIES = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'] as const;
const STATUSES = ['open', 'open', 'open', 'acknowledged', 'needs_review'] as const;

/** 10k findings over 2,000 resources, LLM-like text with characters that need escaping. */
export function reportInput(findings = FINDINGS): ReportInput {
  const perResource = 5;
  const resources = Array.from({ length: Math.ceil(findings / perResource) }, (_, r) => ({
    hash: `h${r.toString(16).padStart(8, '0')}`,
    type: r % 3 === 0 ? 'aws_s3_bucket' : r % 3 === 1 ? 'aws_iam_role' : 'aws_security_group',
    name: `bench_${r}`,
    action: r % 4 === 0 ? 'update' : 'create',
    analyzer: 'terraform',
    summary: `Resource ${r} summary: a bucket & its policy <as planned>.`,
    findings: Array.from({ length: perResource }, (_, k): ReportInputFinding => {
      const i = r * perResource + k;
      return {
        rule_id: `TF-AWS-RULE-${(i % 40).toString().padStart(3, '0')}`,
        title: `Bucket "logs-${i}" allows public <read> & write`,
        severity: SEVERITIES[i % 5],
        confidence: i % 2 ? 'HIGH' : 'MEDIUM',
        risk: `The bucket ACL grants public-read to everyone; objects written by ${i} can be listed.\nA second line with <b>markup</b>.`,
        why_it_matters: 'Anyone on the internet can read the data, including logs that may hold credentials & tokens.',
        suggested_next_step: 'Set `acl = "private"` and enable aws_s3_bucket_public_access_block with all four flags true.',
        evidence: [`acl = "public-read"`, `bucket = "logs-${i}"`],
        resource_address: `aws_s3_bucket.bench_${r}`,
        tags: ['s3', 'public-access'],
        status: STATUSES[i % 5],
      };
    }),
  }));
  return { namespace: 'bench', generatedAt: '2026-01-01T00:00:00.000Z', includeSuppressed: false, resources };
}

export async function benchReport(log: (line: string) => void = console.log): Promise<BenchRow[]> {
  const input = reportInput();
  // Warm-up: parse the template, JIT the render path.
  await renderReport(buildReportModel(reportInput(500)), { format: 'html' });
  await renderReport(buildReportModel(input), { format: 'html' });

  const modelMs: number[] = [];
  const renderMs: number[] = [];
  const stringifyMs: number[] = [];
  let size = 0;
  const deadline = Date.now() + 60_000;
  for (let rep = 0; rep < REPS && Date.now() < deadline; rep += 1) {
    const model = await timed(() => buildReportModel(input));
    modelMs.push(model.ms);
    const html = await timed(() => renderReport(model.value, { format: 'html' }));
    renderMs.push(html.ms);
    size = html.value.content.length;
    stringifyMs.push((await timed(() => JSON.stringify(model.value))).ms);
  }
  const model0 = buildReportModel(input);
  const liquidMs: number[] = [];
  let identical = true;
  for (let rep = 0; rep < 2; rep += 1) {
    const liquid = await timed(() => renderBuiltinWithLiquid(model0, 'html'));
    liquidMs.push(liquid.ms);
    identical &&= liquid.value === (await renderReport(model0, { format: 'html' })).content;
  }
  const source = BUILTIN_TEMPLATES.find((t) => t.format === 'html')!.source;
  const seeded = await timed(() =>
    renderReport(model0, { format: 'html', source }).then(
      () => 'ok',
      (err: unknown) => String(err instanceof Error ? err.message : err),
    ),
  );
  const render = median(renderMs);
  const liquid = median(liquidMs);
  const model = median(modelMs);
  const stringify = median(stringifyMs);
  log(
    `  report 10k: LiquidJS ${liquidMs.map((v) => v.toFixed(0)).join('/')} ms (output identical: ${identical}); seeded copy as org template ${seeded.ms.toFixed(0)} ms: ${seeded.value}`,
  );
  log(
    `  report 10k: model ${modelMs.map((v) => v.toFixed(0)).join('/')} ms, render ${renderMs.map((v) => v.toFixed(0)).join('/')} ms, stringify ${stringifyMs.map((v) => v.toFixed(0)).join('/')} ms, ${(size / 1e6).toFixed(1)} M chars`,
  );
  return [
    {
      item: '6 report',
      figure: `HTML report, ${FINDINGS} findings: renderReport`,
      value: ms(render, 0),
      baseline: `JSON.stringify(model) ${ms(stringify, 0)} (${(render / stringify).toFixed(1)}×)`,
      target: '≤ 300 ms',
      pass: render <= 300 && identical,
      note: `${(size / 1e6).toFixed(1)} M chars out; LiquidJS path ${ms(liquid, 0)} (${(liquid / render).toFixed(0)}× slower), output identical: ${identical}`,
    },
    {
      item: '6 report',
      figure: `HTML report, ${FINDINGS} findings: buildReportModel + render`,
      value: ms(model + render, 0),
      baseline: `model alone ${ms(model, 0)}`,
      target: '≤ 300 ms',
      pass: model + render <= 300,
    },
    {
      item: '6 report',
      figure: `seeded copy of the built-in as an org template, ${FINDINGS} findings`,
      value: ms(seeded.ms, 0),
      baseline: `built-in ${ms(render, 0)}`,
      target: '(info) ≤ 3000 ms render budget',
      pass: null,
      note: seeded.value === 'ok' ? 'rendered within the sandbox budget' : `failed: ${seeded.value.slice(0, 80)}`,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  benchReport().then(
    (rows) => console.table(rows),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
