/** The ellipsis that marks text taken out of the middle. */
const ELLIPSIS = '…';

/** `text` split on `.` outside brackets and quotes (`module.a.aws_x.y["k.v"]` → module, a, aws_x, y["k.v"]). */
function segments(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (c === '"' && text[i - 1] !== '\\') quoted = !quoted;
    else if (!quoted && c === '[') depth += 1;
    else if (!quoted && c === ']') depth = Math.max(0, depth - 1);
    else if (!quoted && depth === 0 && c === '.') {
      out.push(text.slice(start, i));
      start = i + 1;
    }
  }
  out.push(text.slice(start));
  return out;
}

/**
 * `text` at most `max` characters long, shortened in the middle, where a resource address
 * carries least: an address keeps its first module (or first segment) and its type and name
 * (`module.vpc.module.subnets.aws_subnet.private[2]` → `module.vpc…aws_subnet.private[2]`);
 * other text keeps its start and end around an ellipsis. The full text belongs in a tooltip.
 */
export function shortenMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const parts = segments(text);
  if (parts.length >= 4) {
    const head = parts.slice(0, parts[0] === 'module' ? 2 : 1).join('.');
    const tail = parts.slice(-2).join('.');
    if (head.length + ELLIPSIS.length + tail.length <= max) return `${head}${ELLIPSIS}${tail}`;
    if (ELLIPSIS.length + tail.length <= max) return `${ELLIPSIS}${tail}`;
  }
  const keep = max - ELLIPSIS.length;
  const front = Math.ceil(keep / 2);
  return `${text.slice(0, front)}${ELLIPSIS}${text.slice(text.length - (keep - front))}`;
}
