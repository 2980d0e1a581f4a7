/**
 * Plain-text secrets of a `terraform show -json` resource change, masked before rendering
 * (docs/decisions.md "Masking"; checks/secrets.ts has the detectors). Plans from Terraform before 0.15, and
 * providers that forget to mark an argument, carry passwords with no `after_sensitive` mark: this
 * step adds the marks itself, so the one redaction pass of plan-values.ts hides them exactly like
 * values the plan marks sensitive (same `(sensitive value)` marker, same changed/unchanged
 * rendering). Credential-shaped substrings (AWS keys, private-key PEM blocks, tokens, URL
 * passwords) are replaced inside the string, keeping the rest of it reviewable, and so are
 * credential-named keys inside a string that holds JSON (checks/secrets.ts maskJsonStringSecrets).
 */
import { isCredentialKey, isSecretLiteral, maskJsonStringSecrets, maskSecretShapes, SECRET_MARKER, type SecretFinding } from '../common/secrets';
import { isRecord, unionMask } from './plan-values';

interface Found {
  readonly path: (string | number)[];
  readonly kind: SecretFinding['kind'];
}

/**
 * Returns `change` with plain-text secrets masked: credential-named string attributes at any
 * depth get `true` in both sensitivity masks; credential-shaped substrings of other strings are
 * replaced by the marker. Paths the plan already marks sensitive are left alone (not plain text).
 * `secrets` lists what was masked (attribute path, kind), never the value. The input is not
 * modified; with nothing found the same object comes back. `clean` (optional, shared across the
 * changes of one plan) remembers strings already found free of credential shapes, so a string
 * repeated on both sides of an update, or across the resources of a plan, is scanned once.
 */
export function maskPlanSecrets(
  change: Record<string, unknown>,
  clean: Set<string> = new Set(),
): { change: Record<string, unknown>; secrets: Omit<SecretFinding, 'line'>[] } {
  // Common case first: one allocation-free walk per side proves nothing would be found. It may
  // answer "maybe" where the full pass below finds nothing (then the full pass decides), never
  // "no" where the full pass would find something.
  if (
    !mayHoldSecret(change.before, change.before_sensitive, change.after_sensitive, clean) &&
    !mayHoldSecret(change.after, change.before_sensitive, change.after_sensitive, clean)
  )
    return { change, secrets: [] };
  const planMask = unionMask(change.before_sensitive, change.after_sensitive);
  const found: Found[] = [];
  const keyMask = (value: unknown): unknown => credentialMask(value, planMask, [], found);
  const beforeMask = keyMask(change.before);
  const afterMask = keyMask(change.after);
  const before = scrubShapes(change.before, planMask, [], found);
  const after = scrubShapes(change.after, planMask, [], found);
  if (found.length === 0) return { change, secrets: [] };
  const secrets = dedupe(found).map((f) => ({ attribute: pathText(f.path), kind: f.kind }));
  const mask = unionMask(beforeMask, afterMask);
  return {
    change: {
      ...change,
      before,
      after,
      before_sensitive: unionMask(change.before_sensitive, mask),
      after_sensitive: unionMask(change.after_sensitive, mask),
    },
    secrets,
  };
}

/**
 * False only when neither credentialMask nor scrubShapes would find anything in `value` under the
 * union of the sensitivity masks `x` and `y` (read side by side, never built). A path counts as
 * masked only where `x` or `y` holds an own `true` on the very path — which always implies the
 * union masks it (a shape mismatch only widens the union); anything doubtful (a `__proto__` key,
 * whose union entry cannot be read back) answers true.
 */
function mayHoldSecret(value: unknown, x: unknown, y: unknown, clean: Set<string>): boolean {
  if (x === true || y === true) return false;
  if (typeof value === 'string') return stringMayHoldSecret(value, clean);
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) {
    const xs = Array.isArray(x) ? x : undefined;
    const ys = Array.isArray(y) ? y : undefined;
    for (let i = 0; i < value.length; i += 1) {
      if (mayHoldSecret(value[i], xs?.[i], ys?.[i], clean)) return true;
    }
    return false;
  }
  if (!isRecord(value)) return false;
  const xr = isRecord(x) ? x : undefined;
  const yr = isRecord(y) ? y : undefined;
  for (const k of Object.keys(value)) {
    if (k === '__proto__') return true;
    const v = value[k];
    const xk = xr?.[k];
    const yk = yr?.[k];
    if (typeof v === 'string' && xk !== true && yk !== true && isCredentialKeyCached(k) && isSecretLiteral(v, k)) return true;
    if (mayHoldSecret(v, xk, yk, clean)) return true;
  }
  return false;
}

/** scrubShapes' string case, answering only "would anything be found" (same calls, same order). */
function stringMayHoldSecret(value: string, clean: Set<string>): boolean {
  // maskJsonStringSecrets only parses a trimmed `{`/`[`: a first character trim() keeps (printable
  // ASCII other than space) that is neither rules it out without the call.
  const c0 = value.charCodeAt(0);
  const maybeJson = !(c0 > 0x20 && c0 < 0x7f && c0 !== 0x7b && c0 !== 0x5b);
  if (!maybeJson && value.length < 16) return false; // neither scan would look at it
  if (clean.has(value)) return false;
  if (maybeJson) {
    const json = maskJsonStringSecrets(value);
    if (json.paths.length > 0) return true;
  }
  if (value.length < 16) return false;
  if (maskSecretShapes(value).kinds.length > 0) return true;
  clean.add(value);
  return false;
}

const CREDENTIAL_KEYS = new Map<string, boolean>();
const CREDENTIAL_KEYS_MAX = 20_000;
/** Longer keys are not remembered: the memo never keeps a large piece of a finished plan alive. */
const CREDENTIAL_KEY_MAX_LENGTH = 128;

/** isCredentialKey, memoised: attribute names repeat across every resource of a plan. */
function isCredentialKeyCached(key: string): boolean {
  if (key.length > CREDENTIAL_KEY_MAX_LENGTH) return isCredentialKey(key);
  let r = CREDENTIAL_KEYS.get(key);
  if (r === undefined) {
    r = isCredentialKey(key);
    if (CREDENTIAL_KEYS.size >= CREDENTIAL_KEYS_MAX) CREDENTIAL_KEYS.clear();
    CREDENTIAL_KEYS.set(key, r);
  }
  return r;
}

/** A sensitivity mask with `true` on every credential-named literal string not already masked. */
function credentialMask(value: unknown, planMask: unknown, path: (string | number)[], found: Found[]): unknown {
  if (planMask === true) return false;
  if (Array.isArray(value)) {
    const sub = Array.isArray(planMask) ? planMask : [];
    return value.map((v, i) => credentialMask(v, sub[i], [...path, i], found));
  }
  if (!isRecord(value)) return false;
  const sub = isRecord(planMask) ? planMask : {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v === 'string' && isCredentialKey(k) && isSecretLiteral(v, k) && sub[k] !== true) {
      out[k] = true;
      found.push({ path: [...path, k], kind: 'credential-attribute' });
    } else out[k] = credentialMask(v, sub[k], [...path, k], found);
  }
  return out;
}

/** `value` with credential-shaped substrings masked (copies only what changes). */
function scrubShapes(value: unknown, planMask: unknown, path: (string | number)[], found: Found[]): unknown {
  if (planMask === true) return value;
  if (typeof value === 'string') {
    const json = maskJsonStringSecrets(value); // credential keys inside a JSON-encoded attribute
    for (const inner of json.paths) found.push({ path: [...path, ...inner], kind: 'credential-attribute' });
    if (json.text.length < 16) return json.text;
    const { text, kinds } = maskSecretShapes(json.text);
    for (const kind of kinds) found.push({ path, kind });
    return text;
  }
  if (Array.isArray(value)) {
    const sub = Array.isArray(planMask) ? planMask : [];
    let out: unknown[] | null = null;
    value.forEach((v, i) => {
      const c = scrubShapes(v, sub[i], [...path, i], found);
      if (c !== v) (out ??= [...value])[i] = c;
    });
    return out ?? value;
  }
  if (!isRecord(value)) return value;
  const sub = isRecord(planMask) ? planMask : {};
  let out: Record<string, unknown> | null = null;
  for (const [k, v] of Object.entries(value)) {
    const c = scrubShapes(v, sub[k], [...path, k], found);
    if (c !== v) (out ??= { ...value })[k] = c;
  }
  return out ?? value;
}

function pathText(path: readonly (string | number)[]): string {
  return path.map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`)).join('');
}

function dedupe(found: readonly Found[]): Found[] {
  const seen = new Set<string>();
  return found.filter((f) => {
    const key = `${f.kind}\u0000${pathText(f.path)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Attaches evidence lines: for each secret, the first body line that shows the marker on the
 * attribute's last key (`+ password = (sensitive value)`), else any line showing the marker.
 */
export function secretEvidence(body: string, secrets: readonly Omit<SecretFinding, 'line'>[]): SecretFinding[] {
  const lines = body
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.includes(SECRET_MARKER));
  return secrets.map((s) => {
    const leaf = /([^.[\]]+)(?:\[\d+\])*$/.exec(s.attribute)?.[1] ?? '';
    const line = (leaf && lines.find((l) => new RegExp(`^[+~\\- ]?\\s*"?${leaf.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"?\\s*=`).test(l))) || lines[0] || '';
    return { ...s, line };
  });
}
