/**
 * Secret masking for the analyzers whose units are cut verbatim from a source file and carry its
 * parsed data (kubernetes, dockerfile, github-actions, cloudformation; docs/decisions.md
 * "Masking"): the one place where their bodies and `metadata.values` lose plain-text secrets
 * before a unit exists, so neither the store, a report nor a model request ever holds them.
 *
 * What is a secret (secrets.ts detectors, shared with the Terraform analyzer):
 * - a string held by a credential-named key (`MYSQL_ROOT_PASSWORD: supersecret`,
 *   `MasterUserPassword: hunter2`, a workflow `env: {API_TOKEN: abc}`), at any depth;
 * - the `value` of a `{name, value}` pair whose name is credential-named (a container's `env`
 *   entry, an ECS `Environment` entry);
 * - every string under a path the analyzer declares secret whatever its key (a Kubernetes
 *   `Secret`'s `data` and `stringData`);
 * - credential-shaped strings anywhere (AWS keys, private keys, tokens, URL passwords) and
 *   credential-named shell assignments inside strings (`export DB_PASSWORD=x` in a script).
 * A reference is not a literal (`${{ secrets.X }}`, `$DB_PASSWORD`, `{{resolve:...}}`, a value equal
 * to its own name): secrets.ts isSecretLiteral.
 *
 * The parsed data is masked structurally; the body (verbatim source) is masked by replacing each
 * secret literal found in the data where it stands as a whole token (quoted or bare), and then by
 * maskTextSecrets (credential-named assignments with quoted values, credential shapes).
 */
import { isCredentialKey, isSecretLiteral, maskSecretShapes, maskTextSecrets, SECRET_MARKER, type SecretFinding } from './secrets';

export type DataPath = readonly (string | number)[];

export interface UnitSecretOptions {
  /** Further data shown in the body but not part of `values` (a workflow's top-level `env`); only its literals are used. */
  readonly extra?: readonly unknown[];
  /** True for a path (from the root of `values`) whose strings are secret whatever their key. */
  readonly secretPath?: (path: DataPath) => boolean;
}

export interface MaskedUnitParts<T> {
  readonly body: string;
  readonly values: T;
  /** One entry per masked secret (attribute path, kind, masked body line); never the value. */
  readonly secrets: SecretFinding[];
}

/** `{name, value}` keys of a pair whose name says what the value is (secrets.ts PAIR_KEYS). */
const PAIRS: readonly (readonly [string, string])[] = [
  ['name', 'value'],
  ['Name', 'Value'],
];

interface Found {
  readonly attribute: string;
  readonly key: string;
  readonly literal: string;
}

/**
 * Masks the plain-text secrets of one unit: `values` (the unit's parsed data, any JSON-like
 * shape) comes back as a masked copy (unchanged parts shared), `body` with every secret literal
 * and credential shape replaced by SECRET_MARKER (a quoted literal loses its quotes with it), and
 * `secrets` lists what was masked, each with the masked body line that shows it (evidence for
 * checks over `secrets`). Pure; never throws. Input without secrets comes back unchanged.
 */
export function maskUnitSecrets<T>(body: string, values: T, options: UnitSecretOptions = {}): MaskedUnitParts<T> {
  const found: Found[] = [];
  const masked = maskData(values, [], found, options.secretPath) as T;
  for (const extra of options.extra ?? []) maskData(extra, [], found, undefined);
  let out = body;
  for (const f of [...found].sort((a, b) => b.literal.length - a.literal.length)) out = replaceLiteral(out, f.literal, f.key);
  const yaml = maskYamlLines(out);
  const text = maskTextSecrets(yaml.body);
  const maskedLines = text.body.split('\n').filter((l) => l.includes(SECRET_MARKER));
  const secrets: SecretFinding[] = [];
  const seen = new Set<string>();
  for (const f of found) {
    if (seen.has(f.attribute)) continue;
    seen.add(f.attribute);
    const line = maskedLines.find((l) => l.includes(f.key)) ?? maskedLines[0] ?? '';
    secrets.push({ attribute: f.attribute, kind: 'credential-attribute', line: line.trim() });
  }
  const lines = new Set(secrets.map((s) => s.line));
  for (const s of [...yaml.secrets, ...text.secrets]) {
    if (s.kind === 'credential-attribute' && lines.has(s.line ?? '')) continue;
    lines.add(s.line ?? '');
    secrets.push(s);
  }
  return { body: text.body, values: masked, secrets };
}

function maskData(value: unknown, path: DataPath, found: Found[], secretPath: UnitSecretOptions['secretPath']): unknown {
  if (typeof value === 'string') {
    const key = String(path[path.length - 1] ?? '');
    if (secretPath?.(path) && isSecretLiteral(value)) {
      found.push({ attribute: path.join('.'), key, literal: value });
      return SECRET_MARKER;
    }
    const shaped = maskSecretShapes(value);
    return shaped.kinds.length > 0 ? shaped.text : value;
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v, i) => {
      const next = maskData(v, [...path, i], found, secretPath);
      changed ||= next !== v;
      return next;
    });
    return changed ? out : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const pair = PAIRS.find(([n, v]) => typeof record[n] === 'string' && isCredentialKey(record[n] as string) && typeof record[v] === 'string');
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    const name = pair !== undefined && k === pair[1] ? (record[pair[0]] as string) : k;
    let next: unknown;
    if (typeof v === 'string' && (name !== k || isCredentialKey(k)) && isSecretLiteral(v, name)) {
      found.push({ attribute: [...path, name !== k ? name : k].join('.'), key: name, literal: v });
      next = SECRET_MARKER;
    } else {
      next = maskData(v, [...path, k], found, secretPath);
    }
    changed ||= next !== v;
    Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true }); // a `__proto__` key stays a key
  }
  return changed ? out : value;
}

const YAML_KEY_RE = /^([+ -]?\s*(?:-\s+)?)(["']?)([A-Za-z_][\w.-]*)\2(:\s+)(.*)$/;
const PAIR_NAME_RE = /^[+ -]?\s*(?:-\s+)?(?:name|Name):\s+["']?([A-Za-z_][\w.-]*)["']?\s*(?:#.*)?$/;
const PAIR_VALUE_RE = /^([+ -]?\s*(?:-\s+)?(?:value|Value):\s+)(.*)$/;

/**
 * YAML source lines (whole files or diff hunks, where no parsed data exists) whose value is a
 * bare or quoted literal held by a credential-named key (`password: hunter2`), or the `value:`
 * line within NEAR lines after a `name:` line naming a credential (a container's `env` entry):
 * the value becomes SECRET_MARKER. A tag (`!Ref`), flow collection, alias, block scalar or
 * reference is kept.
 */
function maskYamlLines(body: string): { body: string; secrets: SecretFinding[] } {
  const secrets: SecretFinding[] = [];
  let pairName: { name: string; at: number } | null = null;
  const lines = body.split('\n').map((line, i) => {
    const named = PAIR_NAME_RE.exec(line);
    if (named) pairName = isCredentialKey(named[1]) ? { name: named[1], at: i } : null;
    const pairValue = pairName !== null && i - pairName.at <= NEAR ? PAIR_VALUE_RE.exec(line) : null;
    const m = pairValue ? null : YAML_KEY_RE.exec(line);
    const key = pairValue ? ((pairName as { name: string } | null)?.name ?? '') : (m?.[3] ?? '');
    if (!pairValue && !(m && isCredentialKey(key))) return line;
    const prefix = pairValue ? pairValue[1] : `${m![1]}${m![2]}${m![3]}${m![2]}${m![4]}`;
    const value = (pairValue ? pairValue[2] : m![5]).replace(/\s+#.*$/, '').trim();
    const comma = value.endsWith(',') ? ',' : ''; // a JSON template's member separator stays
    const raw = comma ? value.slice(0, -1).trimEnd() : value;
    const literal = /^(["'])(.*)\1$/.exec(raw)?.[2] ?? raw;
    if (/^[!{[&*|>$]/.test(raw) || !isSecretLiteral(literal, key)) return line;
    const out = `${prefix}${SECRET_MARKER}${comma}`;
    secrets.push({ attribute: key, kind: 'credential-attribute', line: out.trim() });
    return out;
  });
  return { body: lines.join('\n'), secrets };
}

/** Literals shorter than this are replaced only near their key (a `TOKEN: "true"` must not mask every `true`). */
const SHORT_LITERAL = 6;
/** How many lines apart a short literal and its key may stand (a `{name, value}` pair spans two or three). */
const NEAR = 3;

/**
 * `body` with every whole-token occurrence of `literal` (each line of a multi-line literal)
 * replaced by SECRET_MARKER: bounded by the line's start or end, whitespace, a quote, `=`, `:`,
 * `,` or a bracket, so `admin` in `administrator` stays. A quoted occurrence loses its quotes. A
 * short literal is replaced only on lines within NEAR lines of one naming `key`.
 */
function replaceLiteral(body: string, literal: string, key: string): string {
  const lines = body.split('\n');
  const near = (i: number): boolean => {
    for (let j = Math.max(0, i - NEAR); j <= Math.min(lines.length - 1, i + NEAR); j += 1) if (lines[j].includes(key)) return true;
    return false;
  };
  for (const part of literal.split('\n').map((l) => l.trim())) {
    if (part === '' || part === SECRET_MARKER) continue;
    const escaped = part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const re = new RegExp(`(^|[\\s=:,\\[{(])(?:"${escaped}"|'${escaped}'|${escaped})(?=$|[\\s,\\]})#;])`, 'g');
    for (let i = 0; i < lines.length; i += 1) {
      if (!lines[i].includes(part) || (part.length < SHORT_LITERAL && !near(i))) continue;
      lines[i] = lines[i].replace(re, (_whole, before: string) => `${before}${SECRET_MARKER}`);
    }
  }
  return lines.join('\n');
}

/** `{plaintext_secrets}` for unit metadata when anything was masked, else `{}` (the key is absent on clean units). */
export function secretsMetadata(secrets: readonly SecretFinding[]): { plaintext_secrets?: SecretFinding[] } {
  return secrets.length > 0 ? { plaintext_secrets: [...secrets] } : {};
}
