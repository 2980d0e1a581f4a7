/**
 * The Markdown escaping of the built-in and org report templates (render.ts registers them as
 * the `md_cell`, `md_text`, `md_code` and `code_fence` filters; markdown-report.ts calls them
 * directly). Every data string reaches a Markdown report through one of these: they neutralise
 * Markdown and HTML injection (analysis-api.md "Reports and report links"). Plain string
 * functions, without LiquidJS, so the compiled Markdown report does not load it.
 */

const MD_INLINE = /[\\`*_[\]|~<>&#]/g;

function mdInline(s: string): string {
  return s.replace(MD_INLINE, (ch) => (ch === '<' ? '&lt;' : ch === '>' ? '&gt;' : ch === '&' ? '&amp;' : `\\${ch}`));
}

/** Markdown table cell / single-line text: one line, `|` `<` `>` `` ` `` and emphasis neutralised. */
export function markdownCell(s: string): string {
  return mdInline(s.replace(/\s+/g, ' ').trim());
}

/** Markdown paragraph text: keeps line breaks, neutralises inline syntax and line-start blocks. */
export function markdownText(s: string): string {
  const lines = s
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.trim());
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    // Leading whitespace is gone (no indented code); escape block markers: headings, lists,
    // setext underlines, numbered lists. `>` becomes an entity, which cannot start a quote.
    out.push(
      mdInline(line)
        .replace(/^([+=-])/, '\\$1')
        .replace(/^(\d+)([.)])/, '$1\\$2'),
    );
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.join('\n');
}

/** Inline code span whose fence is longer than any backtick run inside; `inTable` (true) escapes `|`. */
export function markdownCode(text: string, inTable?: unknown): string {
  let s = text.replace(/\s*[\r\n]+\s*/g, ' ');
  if (s === '') return '';
  const fence = '`'.repeat(longestRun(s, '`') + 1);
  if (inTable === true) s = s.replace(/\|/g, '\\|');
  const pad = s.startsWith('`') || s.endsWith('`') || /^ .* $/.test(s) ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/** Fenced code block of `raw` whose fence outlasts any backtick run inside; `lang` is the info string. */
export function markdownFence(raw: string, lang?: unknown): string {
  const body = raw.replace(/\r\n?/g, '\n').replace(/\n$/, '');
  const fence = '`'.repeat(Math.max(3, longestRun(body, '`') + 1));
  const info = typeof lang === 'string' ? lang.replace(/[^A-Za-z0-9_+.-]/g, '') : '';
  return `${fence}${info}\n${body}\n${fence}`;
}

function longestRun(s: string, ch: string): number {
  let best = 0;
  let run = 0;
  for (const c of s) {
    run = c === ch ? run + 1 : 0;
    if (run > best) best = run;
  }
  return best;
}
