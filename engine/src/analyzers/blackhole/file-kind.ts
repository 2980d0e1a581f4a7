/**
 * Best-effort file kind from a path (and, without a path, from the first bytes): used as the
 * blackhole unit type and as `detected_kind` in auto-routing detections when no specific
 * analyzer claims a file. Labels only; nothing is parsed.
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  tf: 'terraform',
  tfvars: 'terraform',
  hcl: 'hcl',
  yaml: 'yaml',
  yml: 'yaml',
  json: 'json',
  template: 'json',
  toml: 'toml',
  ini: 'ini',
  xml: 'xml',
  md: 'markdown',
  markdown: 'markdown',
  rst: 'text',
  txt: 'text',
  sh: 'shell',
  bash: 'shell',
  ps1: 'powershell',
  py: 'python',
  js: 'javascript',
  mjs: 'javascript',
  ts: 'typescript',
  go: 'go',
  rb: 'ruby',
  java: 'java',
  rs: 'rust',
  sql: 'sql',
  dockerfile: 'dockerfile',
};

/** Kind label for a path: `dockerfile`, `github-workflow`, `yaml`, `markdown`, ..., or `file`. */
export function guessFileKind(path: string | undefined, content?: string): string {
  if (!path) return content === undefined ? 'file' : guessFromContent(content);
  const base = path.split('/').pop() ?? path;
  if (/^(Dockerfile|Containerfile)(\..+)?$/i.test(base)) return 'dockerfile';
  if (/(^|\/)\.github\/workflows\/[^/]+\.ya?ml$/.test(path)) return 'github-workflow';
  const ext = /\.([A-Za-z0-9]+)$/.exec(base)?.[1]?.toLowerCase();
  return (ext && BY_EXTENSION[ext]) || 'file';
}

function guessFromContent(content: string): string {
  const head = content.slice(0, 4096);
  if (/^\s*[{[]/.test(head)) return 'json';
  if (/^FROM\s+\S/im.test(head)) return 'dockerfile';
  if (/^(---\s*$|apiVersion:|[A-Za-z_][\w-]*:\s)/m.test(head)) return 'yaml';
  return 'text';
}
