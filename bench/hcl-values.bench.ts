/**
 * Cost of values on Terraform configuration (analyzers/terraform/hcl-values.ts): the one-time start
 * of HashiCorp's HCL parser (WebAssembly, in this process) and the ingest time of `.tf` files of
 * 1, 10, 100 and 1000 resource blocks, beside the same files with the parser's output ignored
 * (the block split alone, hcl-blocks.ts). Prints figures; run with `npx tsx bench/hcl-values.bench.ts`.
 */
import { performance } from 'node:perf_hooks';
import { findTopLevelBlocks } from '../engine/src/analyzers/terraform/hcl-blocks';
import { hclFileUnits } from '../engine/src/analyzers/terraform/hcl-file';

function tf(blocks: number): string {
  return Array.from(
    { length: blocks },
    (_, i) => `resource "aws_security_group" "sg_${i}" {
  name = "sg-${i}"
  ingress {
    from_port   = 22
    to_port     = 22
    protocol    = "tcp"
    cidr_blocks = ["0.0.0.0/0", var.office_cidr]
  }
  tags = { Name = "sg-\${var.env}" }
}
`,
  ).join('\n');
}

function ms(since: number): string {
  return `${(performance.now() - since).toFixed(1)} ms`;
}

const rss0 = process.memoryUsage().rss;
let t = performance.now();
hclFileUnits(tf(1), 'warm.tf', 'terraform');
console.log(`parser start + first block: ${ms(t)}, resident memory +${((process.memoryUsage().rss - rss0) / 2 ** 20).toFixed(0)} MiB`);
for (const n of [1, 10, 100, 1000]) {
  const text = tf(n);
  t = performance.now();
  const units = hclFileUnits(text, 'main.tf', 'terraform');
  const withValues = ms(t);
  t = performance.now();
  findTopLevelBlocks([{ lines: text.split('\n'), estimate: false }]);
  console.log(
    `${n} blocks (${(text.length / 1024).toFixed(0)} KiB): ingest with values ${withValues} (${units.filter((u) => u.metadata.values).length} valued units); block split alone ${ms(t)}`,
  );
}
