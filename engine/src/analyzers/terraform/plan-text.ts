/**
 * Human-readable `terraform plan` / `terraform show` output → one unit per resource block
 * (analysis-api.md "Analysis unit"). Handles:
 * - Terraform 0.12+ blocks introduced by `# <address> will be created|destroyed|updated in-place`,
 *   `must be replaced`, `is tainted, so must be replaced`, `will be read during apply`, ...;
 *   a block runs to the `}` under its `resource`/`data` keyword (blank lines may occur inside).
 * - Terraform 0.11 blocks introduced by `+ addr`, `- addr`, `~ addr`, `-/+ addr`, `+/- addr`,
 *   `<= data.addr`; a block runs to the next blank line.
 * - ANSI colour codes and CR (CRLF files) are stripped first; only the text between
 *   "Terraform will perform the following actions:" and "Plan: ..." counts (drift sections such as
 *   "Objects have changed outside of Terraform" are not actions). Several plans concatenated
 *   (terragrunt `run-all`/`--all`) give units for each plan; `metadata.plan_index` tells them apart.
 * The body is the block as printed (sensitive values are already masked by Terraform itself;
 * plain-text secrets it printed are masked here, masked-unit.ts).
 */
import { maskedTextUnit } from './masked-unit';
import type { AnalysisUnit, UnitAction } from '../../core/unit';
import { parseAddress } from './address';

// CSI sequences (colours, cursor) and OSC sequences terminated by BEL or ST.
const ANSI_RE = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;
const MODERN_HEADER_RE =
  /^(\s*)# (.+?)(?: \(deposed object ([0-9A-Za-z]+)\))? (will be [a-z-]+(?: [a-z-]+)*.*|must be replaced.*|is tainted, so must be replaced.*|has moved to .+|will no longer be managed by Terraform.*)$/;
const LEGACY_HEADER_RE =
  /^\s*(-\/\+|\+\/-|<=|\+|-|~)\s+((?:module\.[\w-]+(?:\[[^\]]*\])?\.)*(?:data\.)?[A-Za-z_][\w-]*\.[\w-]+(?:\[[^\]]*\]|\.\d+)?)(?:\s+\(.*\))?\s*$/;
const ACTIONS_START_RE = /^\s*(Terraform will perform the following actions:|Terraform planned the following actions)/;
const PLAN_END_RE = /^\s*(Plan: \d+ to |No changes\.|Changes to Outputs:)/;
const OPENER_RE = /^(\s*)(?:[-+~<=/]+\s+)?(resource|data|ephemeral)\s+"/;

/** Strips ANSI escapes and normalises CRLF/CR to LF. */
export function cleanPlanText(text: string): string {
  return text.replace(ANSI_RE, '').replace(/\r\n?/g, '\n');
}

/** True when the text reads like `terraform plan` output (any version). */
export function looksLikePlanText(text: string): boolean {
  const clean = cleanPlanText(text.slice(0, 1_000_000));
  if (/Terraform will perform the following actions|An execution plan has been generated/.test(clean)) return true;
  return clean.split('\n').some((l) => MODERN_HEADER_RE.test(l));
}

interface RawBlock {
  readonly address: string;
  readonly deposed: string | null;
  readonly verb: string;
  readonly lines: string[];
  readonly planIndex: number;
}

/**
 * Splits plan text into units, one per resource block, in output order.
 * Returns [] when the text holds no resource block (e.g. "No changes."). Never throws.
 */
export function planTextUnits(text: string, analyzer: string): AnalysisUnit[] {
  const lines = cleanPlanText(text).split('\n');
  const modern = lines.some((l) => MODERN_HEADER_RE.test(l));
  const gated = lines.some((l) => ACTIONS_START_RE.test(l));
  const blocks = modern ? modernBlocks(lines, gated) : legacyBlocks(lines, gated);
  return blocks.map((b) => toUnit(b, analyzer));
}

function modernBlocks(lines: readonly string[], gated: boolean): RawBlock[] {
  const blocks: RawBlock[] = [];
  let inActions = !gated;
  let planIndex = gated ? -1 : 0;
  let current: (RawBlock & { closeCol: number | null }) | null = null;
  for (const line of lines) {
    if (ACTIONS_START_RE.test(line)) {
      inActions = true;
      planIndex += 1;
      current = null;
      continue;
    }
    if (!inActions) continue;
    const header = MODERN_HEADER_RE.exec(line);
    if (header) {
      current = { address: header[2], deposed: header[3] ?? null, verb: header[4], lines: [line], planIndex, closeCol: null };
      blocks.push(current);
      continue;
    }
    if (PLAN_END_RE.test(line)) {
      inActions = !gated;
      current = null;
      continue;
    }
    if (!current) continue;
    if (/^\S/.test(line)) {
      current = null;
      continue;
    } // column-0 text: a block is always indented
    current.lines.push(line);
    const opener = current.closeCol === null ? OPENER_RE.exec(line) : null;
    if (opener) current.closeCol = line.indexOf(opener[2]);
    else if (current.closeCol !== null && line === `${' '.repeat(current.closeCol)}}`) current = null;
  }
  return blocks.map(trimBlock);
}

function legacyBlocks(lines: readonly string[], gated: boolean): RawBlock[] {
  const blocks: RawBlock[] = [];
  let inActions = !gated;
  let planIndex = gated ? -1 : 0;
  let current: RawBlock | null = null;
  for (const line of lines) {
    if (ACTIONS_START_RE.test(line)) {
      inActions = true;
      planIndex += 1;
      current = null;
      continue;
    }
    if (!inActions) continue;
    if (PLAN_END_RE.test(line)) {
      inActions = !gated;
      current = null;
      continue;
    }
    const header = LEGACY_HEADER_RE.exec(line);
    if (header) {
      current = { address: header[2], deposed: null, verb: header[1], lines: [line], planIndex };
      blocks.push(current);
      continue;
    }
    if (!current) continue;
    if (line.trim() === '' || /^\S/.test(line)) {
      current = null;
      continue;
    }
    current.lines.push(line);
  }
  return blocks.map(trimBlock);
}

function trimBlock<T extends RawBlock>(block: T): RawBlock {
  const lines = [...block.lines];
  while (lines.length > 1 && lines[lines.length - 1].trim() === '') lines.pop();
  return { address: block.address, deposed: block.deposed, verb: block.verb, lines, planIndex: block.planIndex };
}

/** Maps a header verb (modern phrase or 0.11 symbol) to the unit action and replace flag. */
export function planTextAction(verb: string): { action: UnitAction; replace: boolean } {
  if (verb === '-/+' || verb === '+/-' || /replaced/.test(verb)) return { action: 'update', replace: true };
  if (verb === '+' || verb.startsWith('will be created')) return { action: 'create', replace: false };
  if (verb === '-' || verb.startsWith('will be destroyed')) return { action: 'destroy', replace: false };
  if (verb === '~' || verb.startsWith('will be updated')) return { action: 'update', replace: false };
  return { action: 'no-op', replace: false }; // read, import, move, forget
}

function toUnit(block: RawBlock, analyzer: string): AnalysisUnit {
  const { moduleAddress, mode, type } = parseAddress(block.address);
  const { action, replace } = planTextAction(block.verb);
  const name = block.deposed ? `${block.address} (deposed object ${block.deposed})` : block.address;
  const unit = { type: type || 'unknown', name, action, body: block.lines.join('\n') };
  return maskedTextUnit(analyzer, unit, {
    source: 'plan-text',
    address: block.address,
    module_address: moduleAddress,
    mode,
    deposed: block.deposed,
    replace,
    plan_index: block.planIndex,
    header: block.verb,
  });
}
