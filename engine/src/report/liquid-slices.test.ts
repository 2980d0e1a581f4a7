/**
 * Built-in reports rendered in slices of the event loop (liquid-slices.ts): the same bytes as
 * LiquidJS's synchronous driver, other work runs while a large report renders, and a render
 * error surfaces as it would synchronously.
 */
import { Context, Liquid, toValueSync } from 'liquidjs';
import { describe, expect, it } from 'vitest';
import { buildFinding, buildResource } from '../../../tests/helpers/report-fixtures';
import { driveInSlices } from './liquid-slices';
import { buildReportModel } from './model';
import { renderBuiltinWithLiquid, renderReport } from './render';

/** A namespace of `n` resources with three findings each, one hostile title among them. */
function largeModel(n: number) {
  const resources = Array.from({ length: n }, (_, i) =>
    buildResource({
      hash: `h-${i}`,
      name: `bucket_${i}`,
      findings: [
        buildFinding({ resource_address: `aws_s3_bucket.bucket_${i}` }),
        buildFinding({ rule_id: 'S3-009', severity: 'CRITICAL', title: '<script>x</script> | ``` pipe', resource_address: `aws_s3_bucket.bucket_${i}` }),
        buildFinding({ rule_id: 'S3-ACK', severity: 'MEDIUM', status: 'acknowledged', resource_address: `aws_s3_bucket.bucket_${i}` }),
      ],
    }),
  );
  return buildReportModel({ namespace: 'big', generatedAt: '2026-01-01T00:00:00.000Z', includeSuppressed: false, resources });
}

describe('built-in reports rendered in slices', () => {
  it('give the same document as the synchronous render, for both Markdown formats', async () => {
    const model = largeModel(300);
    for (const format of ['markdown', 'markdown_light'] as const) {
      const { content } = await renderReport(model, { format });
      expect(content).toBe(renderBuiltinWithLiquid(model, format));
      expect(content).toContain('bucket_299');
    }
  });

  it('let other callbacks run while a render is under way', async () => {
    const { render, emitter } = renderOf('{% for i in (1..200) %}{% if i > 0 %}{{ i }},{% endif %}{% endfor %}');
    const order: string[] = [];
    setImmediate(() => order.push('other work'));
    await driveInSlices(render, 0).then(() => order.push('render done'));
    expect(order).toEqual(['other work', 'render done']);
    expect(emitter.buffer.split(',').filter(Boolean)).toHaveLength(200);
  });

  it('rejects with the error a nested tag throws, as the synchronous driver throws it', async () => {
    const source = '{% for i in (1..3) %}{% if i == 2 %}{{ missing.value }}{% endif %}{% endfor %}';
    let syncError: unknown;
    try {
      toValueSync(renderOf(source).render);
    } catch (error) {
      syncError = error;
    }
    expect(syncError).toBeInstanceOf(Error);
    await expect(driveInSlices(renderOf(source).render, 0)).rejects.toThrow((syncError as Error).message);
  });
});

/** A render generator of `source` (strict variables) and the emitter it writes to. */
function renderOf(source: string) {
  const liquid = new Liquid({ strictVariables: true });
  const emitter = {
    buffer: '',
    write(html: unknown) {
      this.buffer += String(html);
    },
  };
  const render = liquid.renderer.renderTemplates(liquid.parse(source), new Context({}, liquid.options, { sync: true }, { liquid }), emitter);
  return { render, emitter };
}
