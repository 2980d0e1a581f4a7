/**
 * A whole Terraform configuration file (`.tf`, `.tfvars`) given as a blob → one unit per
 * top-level block, body = the block verbatim. There is no plan, so the action is `create`:
 * reviewing a configuration file means reviewing what applying it would create.
 * Lines outside any recognised block that are not blank or comments (`.tfvars` assignments)
 * become one fragment unit. A `resource` block that parses carries `values` in the shape
 * of a plan unit's (hcl-values.ts), so the deterministic checks judge it.
 */
import { maskedTextUnit } from './masked-unit';
import type { AnalysisUnit } from '../../core/unit';
import { findTopLevelBlocks } from './hcl-blocks';
import { hclBlocksValues } from './hcl-values';

/** Units for a configuration file; `path` (optional) is shown in each body. Never throws. */
export function hclFileUnits(text: string, path: string | undefined, analyzer: string): AnalysisUnit[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks = findTopLevelBlocks([{ lines, estimate: false }]);
  const head = path ? [`# file: ${path}`] : [];
  const covered = new Set<number>();
  const units: AnalysisUnit[] = [];
  const valued = hclBlocksValues(
    blocks.map((b) => ({
      kind: b.closed && b.opener ? b.opener.kind : '',
      labels: b.opener?.labels ?? [],
      text: lines.slice(b.start, b.end + 1).join('\n'),
    })),
  );
  for (const [n, block] of blocks.entries()) {
    for (let i = block.start; i <= block.end; i += 1) covered.add(i);
    if (!block.opener) continue;
    const source = lines.slice(block.start, block.end + 1).join('\n');
    const unit = { type: block.opener.type, name: block.opener.name, action: 'create' as const, body: [...head, source].join('\n') };
    const values = valued[n];
    units.push(
      maskedTextUnit(analyzer, unit, {
        source: 'hcl',
        path: path ?? null,
        block_kind: block.opener.kind,
        address: block.opener.name,
        start_line: block.start + 1,
        end_line: block.end + 1,
        ...(values !== undefined ? { values } : {}),
      }),
    );
  }
  const loose = lines.filter((l, i) => !covered.has(i) && !/^\s*(#.*|\/\/.*)?$/.test(l));
  if (loose.length > 0) {
    const isVars = path !== undefined && /\.tfvars$/.test(path);
    const unit = { type: isVars ? 'tfvars' : 'hcl_fragment', name: path ?? 'input', action: 'create' as const, body: [...head, ...loose].join('\n') };
    units.push(maskedTextUnit(analyzer, unit, { source: 'hcl', path: path ?? null }));
  }
  return units;
}
