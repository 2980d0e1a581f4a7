/**
 * The line structure of a Dockerfile (Dockerfile reference: "Format", "Parser directives",
 * "Here-Documents"): instructions with their continuation lines and here-documents. Only the
 * structure is read here (no installed, maintained Dockerfile parser exists; the units need
 * verbatim source lines, not an AST). Arguments are kept as text.
 *
 * - Parser directives (`# syntax=`, `# escape=`) are honoured for the escape character.
 * - A line ending in the escape character continues on the next line; comment and blank lines
 *   inside a continuation are skipped, as Docker does.
 * - `<<EOF` / `<<-EOF` / `<<"EOF"` here-documents run to their terminator line.
 */

export const DOCKERFILE_INSTRUCTIONS = new Set([
  'ADD',
  'ARG',
  'CMD',
  'COPY',
  'ENTRYPOINT',
  'ENV',
  'EXPOSE',
  'FROM',
  'HEALTHCHECK',
  'LABEL',
  'MAINTAINER',
  'ONBUILD',
  'RUN',
  'SHELL',
  'STOPSIGNAL',
  'USER',
  'VOLUME',
  'WORKDIR',
]);

/** One instruction: upper-cased keyword, arguments joined, 1-based inclusive source lines. */
export interface Instruction {
  readonly keyword: string;
  readonly args: string;
  readonly startLine: number;
  readonly endLine: number;
}

export interface DockerfileStructure {
  readonly lines: readonly string[];
  readonly instructions: readonly Instruction[];
  /** 1-based line of the first instruction whose keyword is unknown; null when all are known. */
  readonly unknownAt: number | null;
}

const HEREDOC_RE = /<<(-?)(["']?)([A-Za-z_][\w-]*)\2/g;

/** Splits a Dockerfile into instructions. Never throws; judge the result with `unknownAt`. */
export function readInstructions(text: string): DockerfileStructure {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const escapeCh = escapeChar(lines);
  const instructions: Instruction[] = [];
  let unknownAt: number | null = null;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlankOrComment(line)) {
      i += 1;
      continue;
    }
    const start = i;
    const parts = [stripEscape(line, escapeCh)];
    let open = endsWithEscape(line, escapeCh);
    while (open && i + 1 < lines.length) {
      i += 1;
      if (isBlankOrComment(lines[i])) continue;
      parts.push(stripEscape(lines[i], escapeCh));
      open = endsWithEscape(lines[i], escapeCh);
    }
    const joined = parts.join(' ').trim();
    const keyword = (/^\S+/.exec(joined)?.[0] ?? '').toUpperCase();
    if (!DOCKERFILE_INSTRUCTIONS.has(keyword) && unknownAt === null) unknownAt = start + 1;
    for (const doc of heredocs(keyword, joined)) {
      while (i + 1 < lines.length) {
        i += 1;
        const body = doc.strip ? lines[i].replace(/^\t+/, '') : lines[i];
        if (body === doc.word) break;
      }
    }
    instructions.push({ keyword, args: joined.slice(keyword.length).trim(), startLine: start + 1, endLine: i + 1 });
    i += 1;
  }
  return { lines, instructions, unknownAt };
}

function heredocs(keyword: string, joined: string): { word: string; strip: boolean }[] {
  if (!['RUN', 'COPY', 'ADD'].includes(keyword)) return [];
  return [...joined.matchAll(HEREDOC_RE)].map((m) => ({ word: m[3], strip: m[1] === '-' }));
}

function escapeChar(lines: readonly string[]): string {
  for (const line of lines) {
    const directive = /^#\s*([a-z]+)\s*=\s*(\S+)\s*$/i.exec(line);
    if (!directive) break; // directives come first; anything else ends them
    if (directive[1].toLowerCase() === 'escape' && (directive[2] === '`' || directive[2] === '\\')) return directive[2];
  }
  return '\\';
}

function isBlankOrComment(line: string): boolean {
  const t = line.trim();
  return t === '' || t.startsWith('#');
}

function endsWithEscape(line: string, escapeCh: string): boolean {
  return line.trimEnd().endsWith(escapeCh);
}

function stripEscape(line: string, escapeCh: string): string {
  const t = line.trimEnd();
  return t.endsWith(escapeCh) ? t.slice(0, -1) : t;
}
