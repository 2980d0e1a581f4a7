/**
 * Behaviour lock for the ingest performance work: the optimised plan-JSON pipeline
 * (plan-values.ts, render-change.ts, plan-json.ts, ingest/hash.ts) must produce exactly the
 * units — body, name, type, action, hash, metadata — of the frozen pre-optimisation copy in
 * testing/legacy-plan-json.ts, on every corpus plan and on generated changes that stress
 * sensitive/unknown masks of every shape, JSON-in-string attributes, heredocs and array diffs.
 * GOLDEN of infracost-aws-modules-tf014-large.json was re-recorded for secret masking: its plain-text
 * RDS password is now masked, which changes two bodies (and their hashes) and adds
 * `plaintext_secrets` to their metadata. The metadata keys added after the reference froze (`plaintext_secrets`,
 * `values`, `context`, `context_digest`) are set aside before comparing and hashing.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../core/decode';
import { extractPlanJson, planJsonUnits } from './plan-json';
import { maskPlanSecrets } from './plan-secrets';
import { legacyPlanJsonUnits } from '../../../../tests/reference/legacy-plan-json';
import { CORPUS } from '../../../../tests/corpus';

const CORPUS_DIR = fileURLToPath(new URL('tfplan-json/', CORPUS));

/**
 * SHA-256 of JSON.stringify(units) per corpus plan, recorded with the pre-optimisation code
 * (so the frozen copy itself is checked against what production produced).
 */
const GOLDEN: Record<string, string> = {
  'checkov-aws-github-oidc-iam-modules.json': 'e2cf0aef2c0232efeb39590a4aec8f39e1193bc95b8d9de32ac675683eae4908', // 9 units
  'checkov-aws-replace-create-delete.json': 'a43697192a3660edf76167f73a82e675e937bfb0c516deb61479d6556c40127b', // 1 units
  'checkov-aws-utf16le-bom-windows.json': 'ddcab99103cd2e708ee1ba5cd3410932dac16f7758d2c123cffee65c08c91ec1', // 1 units
  'checkov-gcp-modules.json': '3ffaeea667eccafd86807db7f70790091323500837ad9876be58878a5a9577d6', // 11 units
  'infracost-aws-modules-tf014-large.json': '0c0ec05e0ad3d2a4684c2371fde2d9115314ba9f8184afe9a3bbba4fbdc00e63', // 26 units (password masked)
  'infracost-azure-firewall.json': '0e08d28b4c2b297d56476ab646ad5371157494734d956e1702e6805a6e79a315', // 11 units
  'infracost-setup-terraform-wrapper-noise.json': '0aeec1b544810b4f289471ad382a08d1d0661c830f97ce3b351f6ae46d3ab565', // 2 units
  'terraform-equivalence-fully-populated-complex-update.json': 'fccdc3e1db2045a58dd9c19eb0f5786b2b8e97f1909e98ef71362f57df82f797', // 1 units
  'terraform-showjson-basic-delete.json': '09d32ceb3876834e4e832111b692c26462c3dbd8137409b983927cd1b09a8d8b', // 2 units
  'terraform-showjson-drift.json': '512f63915c77b15de6da4cce272028ac01c26a9e7e245a2945a1aefe7e50a24a', // 2 units
  'terraform-showjson-sensitive-values.json': '398c99260e3eedce8cbcbff298f03a36f4fe4138d50d982a37d1e5c1af4b5856', // 1 units
  'tfcompliance-aws-deletes-drift-issue522.json': '559046df9701f787642b74f22713734e8763b153656ee21b6dcf80fe9c027669', // 15 units
};

function corpusPlans(): { file: string; plan: Record<string, unknown> }[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, plan: extractPlanJson(decodeText(readFileSync(join(CORPUS_DIR, file)))) }));
}

/** The plan with every change's plain-text secrets masked (plan-secrets.ts), for the frozen reference. */
function withSecretsMasked(plan: Record<string, unknown>): Record<string, unknown> {
  const changes = plan.resource_changes as Record<string, unknown>[];
  return { ...plan, resource_changes: changes.map((rc) => ({ ...rc, change: maskPlanSecrets(rc.change as Record<string, unknown>).change })) };
}

function digest(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('hex');
}

describe('optimised plan-JSON pipeline = frozen reference', () => {
  const plans = corpusPlans();

  it.each(plans.map((p) => [p.file, p.plan] as const))('corpus %s: identical units', (file, plan) => {
    const now = planJsonUnits(plan, 'terraform');
    // Plain-text secrets are masked before the pipeline the reference froze: the
    // reference gets the same masked changes, and the production-only metadata key is set aside.
    const ref = legacyPlanJsonUnits(withSecretsMasked(plan), 'terraform');
    const comparable = now.map(
      ({ metadata: { plaintext_secrets: _secrets, values: _values, context: _context, context_digest: _digest, ...metadata }, ...unit }) => ({
        ...unit,
        metadata,
      }),
    );
    expect(comparable).toEqual(ref);
    expect(JSON.stringify(comparable)).toBe(JSON.stringify(ref)); // key order too
    if (GOLDEN[file]) expect(digest(comparable)).toBe(GOLDEN[file]);
  });

  it('records a golden digest for every corpus plan', () => {
    expect(Object.keys(GOLDEN).sort()).toEqual(plans.map((p) => p.file));
  });

  it('generated changes (masks of every shape, JSON strings, heredocs, array diffs): identical units', () => {
    const rand = prng(0x5eed);
    let thrown = 0;
    let crashes = 0;
    for (let n = 0; n < 6000; n += 1) {
      const plan = { format_version: '1.2', resource_changes: [JSON.parse(JSON.stringify(genChange(rand, `r${n}`))) as unknown] };
      const now = outcome(() =>
        planJsonUnits(plan, 'terraform').map(({ metadata: { values: _values, context: _context, context_digest: _digest, ...metadata }, ...unit }) => ({
          ...unit,
          metadata,
        })),
      );
      let ref = outcome(() => legacyPlanJsonUnits(JSON.parse(JSON.stringify(plan)) as Record<string, unknown>, 'terraform'));
      // The reference crashes (TypeError) on a few malformed masks (sparse arrays from an
      // after_unknown longer than the value); production turns any such crash into a 422.
      if (ref.startsWith('throws') && ref !== 'throws ValidationError') {
        ref = 'throws ValidationError';
        crashes += 1;
      }
      if (now !== ref) expect({ change: plan.resource_changes[0], now }).toEqual({ change: plan.resource_changes[0], now: ref });
      if (ref.startsWith('throws')) thrown += 1;
    }
    expect(thrown).toBeLessThan(600);
    expect(crashes).toBeGreaterThan(0); // the generator does reach the crash: the 422 path is exercised
  });

  it('does not modify the parsed plan', () => {
    for (const { plan } of plans) {
      const before = JSON.stringify(plan);
      planJsonUnits(plan, 'terraform');
      expect(JSON.stringify(plan)).toBe(before);
    }
  });
});

/** JSON of the units, or `throws <ErrorClass>`. */
function outcome(fn: () => unknown): string {
  try {
    return JSON.stringify(fn());
  } catch (err) {
    return `throws ${(err as Error).constructor.name}`;
  }
}

// ---------------------------------------------------------------------------------------------
// Generator.

type Rand = () => number;

function prng(seed: number): Rand {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];

const KEYS = ['a', 'b', 'name', 'tags', 'policy', 'id', 'Key With Space', 'x-y', '1st', 'ingress', 'EOT', 'café', 'z_z', '__proto__x', '10', '2'];
/** Rare keys with prototype semantics (as own JSON keys, set with defineProperty). */
const ODD_KEYS = ['__proto__', 'toString', 'constructor', 'hasOwnProperty'];

function key(rand: Rand): string {
  return rand() < 0.03 ? pick(rand, ODD_KEYS) : pick(rand, KEYS);
}

/** `obj[k] = v` as JSON.parse would do it (an own property even for `__proto__`). */
function put(obj: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(obj, k, { value: v, enumerable: true, writable: true, configurable: true });
}
const STRINGS = [
  '',
  'x',
  'hello world',
  'line1\nline2',
  'line1\nEOT\nline3\n',
  'EOT',
  'a\n\nb',
  'tab\there',
  'quote"s',
  'back\\slash',
  '{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"s3:*","Resource":"*"}]}',
  ' [1, 2, {"k": "v"}] ',
  '{}',
  '[]',
  '{not json}',
  '[1,2',
  '{"nested":"{\\"x\\":1}"}',
  'caf\u0065\u0301',
  'caf\u00e9',
  '\u{1F600} emoji',
  'crlf\r\nline',
  'cr\rline',
  '${var.x}',
  'true',
  '42',
  'null',
];

function genValue(rand: Rand, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.45) {
    const s = rand();
    if (s < 0.55) return pick(rand, STRINGS);
    if (s < 0.7) return Math.floor(rand() * 100) - 10;
    if (s < 0.75) return rand() * 10;
    if (s < 0.85) return rand() < 0.5;
    return null;
  }
  if (r < 0.7) return Array.from({ length: Math.floor(rand() * 5) }, () => genValue(rand, depth + 1));
  const out: Record<string, unknown> = {};
  for (let i = Math.floor(rand() * 5); i > 0; i -= 1) put(out, key(rand), genValue(rand, depth + 1));
  return out;
}

/** A variant of `v`: mostly equal, sometimes edited (so diffs, LCS and equal paths all occur). */
function mutate(rand: Rand, v: unknown, depth: number): unknown {
  const r = rand();
  if (r < 0.5) return structuredClone(v);
  if (r < 0.6) return genValue(rand, depth);
  if (Array.isArray(v)) {
    const out = v.map((x) => mutate(rand, x, depth + 1));
    if (rand() < 0.3) out.splice(Math.floor(rand() * (out.length + 1)), 0, genValue(rand, depth + 1));
    if (rand() < 0.3 && out.length > 0) out.splice(Math.floor(rand() * out.length), 1);
    return out;
  }
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (rand() > 0.15) put(out, k, mutate(rand, x, depth + 1));
    if (rand() < 0.3) put(out, key(rand), genValue(rand, depth + 1));
    return out;
  }
  return rand() < 0.5 ? v : genValue(rand, depth);
}

/** A mask roughly mirroring `v` (booleans inside), sometimes of the wrong shape. */
function genMask(rand: Rand, v: unknown, depth: number, density: number): unknown {
  const r = rand();
  if (r < 0.05) return true;
  if (r < 0.1) return pick(rand, [false, null, undefined, 0, 'x', [], {}, [true], { a: true }, [false, [true]]]);
  if (Array.isArray(v)) return v.map((x) => genMask(rand, x, depth + 1, density)).concat(rand() < 0.1 ? [true] : []);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (rand() < 0.8) put(out, k, genMask(rand, x, depth + 1, density));
    if (rand() < 0.15) put(out, key(rand), rand() < 0.5 ? true : genMask(rand, genValue(rand, depth + 1), depth + 1, density));
    return out;
  }
  return rand() < density;
}

const ACTIONS: readonly string[][] = [
  ['create'],
  ['delete'],
  ['update'],
  ['no-op'],
  ['read'],
  ['forget'],
  ['delete', 'create'],
  ['create', 'delete'],
  ['create', 'forget'],
  ['weird'],
];

function genChange(rand: Rand, name: string): Record<string, unknown> {
  const actions = pick(rand, ACTIONS);
  const rootShape = (): unknown => {
    const o: Record<string, unknown> = {};
    for (let i = 1 + Math.floor(rand() * 6); i > 0; i -= 1) put(o, key(rand), genValue(rand, 1));
    return o;
  };
  let before: unknown = rootShape();
  let after: unknown = mutate(rand, before, 0);
  if (actions[0] === 'create' && rand() < 0.7) before = null;
  if (actions[0] === 'delete' && rand() < 0.7) after = null;
  if (rand() < 0.05) before = pick(rand, ['scalar', 3, [1, 2], true]);
  if (rand() < 0.05) after = pick(rand, ['scalar2', 4, [1, 3], false]);
  const change: Record<string, unknown> = { actions, before, after };
  const density = pick(rand, [0, 0.1, 0.5]);
  if (rand() < 0.8) change.before_sensitive = genMask(rand, before, 0, density);
  if (rand() < 0.8) change.after_sensitive = genMask(rand, after, 0, density);
  if (rand() < 0.8) change.after_unknown = genMask(rand, after ?? rootShape(), 0, pick(rand, [0, 0.2, 0.6]));
  if (rand() < 0.1) change.replace_paths = [[pick(rand, KEYS)], [pick(rand, KEYS), 0, 'x'], 'bad'];
  if (rand() < 0.05) change.importing = { id: 'imp-1' };
  const rc: Record<string, unknown> = {
    address: rand() < 0.1 ? `module.m.aws_thing.${name}["k"]` : `aws_thing.${name}`,
    mode: pick(rand, ['managed', 'data', 'ephemeral', undefined]),
    type: pick(rand, ['aws_thing', 'google_x', undefined]),
    name: rand() < 0.9 ? name : undefined,
    provider_name: rand() < 0.8 ? 'registry.terraform.io/hashicorp/aws' : undefined,
    change,
  };
  if (rand() < 0.1) rc.deposed = 'abcd1234';
  if (rand() < 0.1) rc.action_reason = 'replace_because_tainted';
  if (rand() < 0.1) rc.module_address = 'module.m';
  if (rand() < 0.05) rc.previous_address = 'aws_thing.old';
  return rc;
}
