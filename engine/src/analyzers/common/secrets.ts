/**
 * Plain-text secret detection and masking (docs/decisions.md "Masking": plain-text secrets are
 * masked in the unit body before any model sees it, on every plan, marked sensitive or not).
 *
 * Two detectors, shared by every analyzer that masks:
 * - credential-named attributes: a key whose last word is a credential word (`password`,
 *   `admin_password`, `client_secret`, `auth_token`, `private_key`, `access_key`, ...) holding a
 *   non-empty literal string;
 * - credential-shaped strings anywhere: AWS access key ids (AKIA/ASIA + 16), PEM private-key
 *   blocks, bearer tokens, GitHub/Slack/OpenAI-style API tokens, JWTs, Azure `AccountKey=` /
 *   `SharedAccessSignature=` parts, and the password of a URL (`scheme://user:pass@host`).
 * A masked value is replaced by SECRET_MARKER, the label the Terraform analyzer already uses for
 * values a plan marks sensitive, so a model sees one convention for "hidden on purpose".
 */

/** The redaction marker (same text as plan-values.ts SENSITIVE). */
export const SECRET_MARKER = '(sensitive value)';

/** What a masked secret was recognised by. */
export type SecretKind =
  | 'credential-attribute'
  | 'credential-assignment'
  | 'aws-access-key'
  | 'private-key'
  | 'bearer-token'
  | 'api-token'
  | 'jwt'
  | 'azure-key'
  | 'url-password';

/** One masked secret, recorded in unit metadata (`plaintext_secrets`); never holds the value. */
export interface SecretFinding {
  /** Attribute path (plan JSON) or key (text) that held it; '' when not known. */
  readonly attribute: string;
  readonly kind: SecretKind;
  /** The body line showing the masked value (evidence), filled by the analyzer once rendered. */
  readonly line?: string;
}

const CREDENTIAL_KEY_RE =
  /(?:^|[_.-])(?:password|passwd|passphrase|secret|token|private_key|privatekey|access_key|accesskey|secret_key|secretkey|api_key|apikey|client_secret|connection_string|sas_token|auth_token|credentials?|secret_string)$/i;
/** Credential-looking names that hold no secret (idempotency tokens, flags handled by type, a workflow's `id-token` permission). */
const NOT_CREDENTIAL_KEY_RE = /^(?:creation_token|client_token|idempotency_token|token_type|secret_type|id-token)$/i;

/**
 * True when an attribute/key name says its value is a credential (case-insensitive, last word;
 * camelCase words count as words: `MasterUserPassword`, `clientSecret`).
 */
export function isCredentialKey(key: string): boolean {
  const words = /[a-z0-9][A-Z]/.test(key) ? key.replace(/([a-z0-9])([A-Z])/g, '$1_$2') : key;
  return CREDENTIAL_KEY_RE.test(words) && !NOT_CREDENTIAL_KEY_RE.test(words);
}

/**
 * A literal worth masking: non-empty and not only a reference, namely a template reference such as
 * `${var.x}`, a workflow expression (`${{ secrets.X }}`), a Helm/Go template (`{{ .Values.x }}`) or a
 * CloudFormation dynamic reference (`{{resolve:secretsmanager:...}}`). With the `key` that holds it:
 * also not a placeholder equal to its own name (`DB_PASSWORD = "DB_PASSWORD"`, case and `-`/`_`
 * ignored), which names the secret without holding it.
 */
export function isSecretLiteral(value: string, key?: string): boolean {
  const t = value.trim();
  if (t === '' || t === SECRET_MARKER) return false;
  if (key !== undefined && normalisedName(t) === normalisedName(key)) return false;
  return !/^\$\{[^}]*\}$/.test(t) && !/^\$?\{\{[\s\S]*\}\}$/.test(t);
}

function normalisedName(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]/g, '');
}

interface ShapePattern {
  readonly kind: SecretKind;
  readonly re: RegExp;
  /** Replacement keeping the non-secret parts (e.g. the URL's user and host). */
  readonly replace: string;
}

const SHAPES: readonly ShapePattern[] = [
  { kind: 'private-key', re: /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, replace: SECRET_MARKER },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: SECRET_MARKER },
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: SECRET_MARKER },
  {
    kind: 'api-token',
    re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|xox[abposr]-[A-Za-z0-9-]{10,}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|glpat-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})/g,
    replace: SECRET_MARKER,
  },
  { kind: 'bearer-token', re: /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/-]{16,}=*/g, replace: `$1 ${SECRET_MARKER}` },
  { kind: 'azure-key', re: /\b(AccountKey|SharedAccessKey|SharedAccessSignature)=[^;"'\s]+/g, replace: `$1=${SECRET_MARKER}` },
  { kind: 'url-password', re: /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"'(]+):(?!\(sensitive value\))[^\s@/"']+@/gi, replace: `$1:${SECRET_MARKER}@` },
];

/**
 * A shell or dotenv assignment inside a string (`export DB_PASSWORD='hunter2'`, `API_TOKEN=abc`,
 * a `?token=abc` query): the name is group 1, the value a quoted (2, 3) or bare (4) literal.
 * Masked only when the name is credential-named and the value is a literal, not `$VAR`/`${...}`;
 * recorded as kind `credential-assignment` (the bootstrap-script rule's finding, not the
 * plain-text-attribute rule's).
 */
const SHELL_ASSIGNMENT_RE = /\b([A-Za-z_][A-Za-z0-9_]*)=(?:(['"])((?:(?!\2)[^\n])+)\2|([^\s'"$;&|`)]+))/g;

function maskShellAssignments(text: string, kinds: SecretKind[]): string {
  if (!text.includes('=')) return text;
  return text.replace(SHELL_ASSIGNMENT_RE, (whole, name: string, _quote: string | undefined, quoted: string | undefined, bare: string | undefined) => {
    const value = quoted ?? bare ?? '';
    if (!isCredentialKey(name) || value.startsWith('$') || !isSecretLiteral(value, name) || value === SECRET_MARKER) return whole;
    kinds.push('credential-assignment');
    return `${name}=${SECRET_MARKER}`; // quotes dropped with the value: one marker shape for every script
  });
}

/**
 * Replaces every credential-shaped substring of `text` by SECRET_MARKER (keeping the non-secret
 * parts of a URL, header or connection string), and the literal value of a credential-named
 * shell/dotenv assignment inside it (`export DB_PASSWORD='x'` in a bootstrap script). Returns the
 * masked text and the kinds found, in pattern order, one entry per match. Pure; `text` without
 * secrets comes back unchanged.
 */
export function maskSecretShapes(text: string): { text: string; kinds: SecretKind[] } {
  const kinds: SecretKind[] = [];
  let out = maskShellAssignments(text, kinds);
  for (const shape of SHAPES) {
    shape.re.lastIndex = 0;
    if (!shape.re.test(out)) continue;
    shape.re.lastIndex = 0;
    out = out.replace(shape.re, (...args: unknown[]) => {
      kinds.push(shape.kind);
      return shape.replace.replace(/\$1/g, String(args[1] ?? ''));
    });
  }
  return { text: out, kinds };
}

/** Keys naming the credential of a `{name, value}` pair (ECS `environment`/`secrets`, CloudFormation `Name`/`Value`). */
const PAIR_KEYS: readonly (readonly [string, string])[] = [
  ['name', 'value'],
  ['Name', 'Value'],
];

/**
 * Masks credentials inside a string attribute that holds JSON (an ECS task's
 * `container_definitions`, a policy, an `environment` map): a credential-named key with a
 * literal string value (`"DB_PASSWORD": "hunter2"`), and the `value` of a `{name, value}` pair
 * whose name is credential-named (`{"name": "DB_PASSWORD", "value": "hunter2"}`), become
 * SECRET_MARKER at any depth. The JSON is re-serialised (two-space indented when the original
 * spanned lines, else compact); `paths` are the masked values' paths inside it (keys and array
 * indexes). Text that is not a JSON object or array, or holds no such credential, comes back
 * unchanged with no paths. Pure; never throws.
 */
export function maskJsonStringSecrets(text: string): { text: string; paths: (string | number)[][] } {
  const t = text.trim();
  if (!(t.startsWith('{') && t.endsWith('}')) && !(t.startsWith('[') && t.endsWith(']'))) return { text, paths: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(t);
  } catch {
    return { text, paths: [] };
  }
  const paths: (string | number)[][] = [];
  const masked = maskJsonValue(parsed, [], paths);
  if (paths.length === 0) return { text, paths };
  return { text: JSON.stringify(masked, null, t.includes('\n') ? 2 : undefined), paths };
}

function maskJsonValue(value: unknown, path: (string | number)[], paths: (string | number)[][]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => maskJsonValue(v, [...path, i], paths));
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  const pair = PAIR_KEYS.find(
    ([n, v]) =>
      typeof record[n] === 'string' &&
      isCredentialKey(record[n] as string) &&
      typeof record[v] === 'string' &&
      isSecretLiteral(record[v] as string, record[n] as string),
  );
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) {
    const secret = typeof v === 'string' && ((pair !== undefined && k === pair[1]) || (isCredentialKey(k) && isSecretLiteral(v, k)));
    if (secret) paths.push([...path, k]);
    const next = secret ? SECRET_MARKER : maskJsonValue(v, [...path, k], paths);
    Object.defineProperty(out, k, { value: next, enumerable: true, writable: true, configurable: true }); // a `__proto__` key stays a key
  }
  return out;
}

const ASSIGNMENT_RE = /^(\s*(?:[+~-]|-\/\+|\+\/-)?\s*)("?)([A-Za-z0-9_.-]+)\2(\s*[=:]\s*)(.*)$/;
const QUOTED_RE = /"(?:[^"\\]|\\.)*"/g;

/**
 * Masks secrets in a text body (Terraform plan text, HCL blocks, diff hunks): on a line that
 * assigns a credential-named key (`password = "x"`, `~ password: "a" => "b"`, `+ admin_password = "x"`),
 * every quoted literal becomes SECRET_MARKER (references and `${...}`-only strings are kept);
 * then credential-shaped substrings anywhere are masked (maskSecretShapes).
 * Returns the masked body and one SecretFinding per masked line, carrying the masked line.
 */
export function maskTextSecrets(body: string): { body: string; secrets: SecretFinding[] } {
  const secrets: SecretFinding[] = [];
  const lines = body.split('\n').map((line) => {
    const m = ASSIGNMENT_RE.exec(line);
    if (!m || !isCredentialKey(m[3])) return line;
    let masked = false;
    const value = m[5].replace(QUOTED_RE, (quoted) => {
      if (!isSecretLiteral(quoted.slice(1, -1), m[3])) return quoted;
      masked = true;
      return SECRET_MARKER;
    });
    if (!masked) return line;
    const out = `${m[1]}${m[2]}${m[3]}${m[2]}${m[4]}${value}`;
    secrets.push({ attribute: m[3], kind: 'credential-attribute', line: out.trim() });
    return out;
  });
  const joined = lines.join('\n');
  const shaped = maskSecretShapes(joined);
  if (shaped.kinds.length > 0) {
    const before = new Set(joined.split('\n'));
    const changed = shaped.text.split('\n').filter((l) => !before.has(l) && l.includes(SECRET_MARKER));
    for (const [i, kind] of shaped.kinds.entries()) secrets.push({ attribute: '', kind, line: (changed[i] ?? changed[0] ?? '').trim() });
  }
  return { body: shaped.text, secrets };
}
