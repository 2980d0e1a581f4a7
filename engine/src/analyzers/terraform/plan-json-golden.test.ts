/**
 * Output lock for the issue-18 split speed-up (plan-json.ts, plan-secrets.ts, plan-values.ts,
 * render-change.ts, plan-context.ts, ingest/json-depth.ts): the FULL units — body, hash and all
 * metadata, `plaintext_secrets`, `values`, `context` and `context_digest` included, key order
 * included — of every corpus plan and of a bench-style plan (corpus changes replicated under new
 * addresses, as bench/lib.ts planOfSize builds them) must hash to the digests recorded with the
 * code as it was before that work. equivalence.test.ts compares against the frozen legacy copy
 * but sets those metadata keys aside; this file covers them. Plus attacks on the shortcuts the
 * work added: a secret repeated across resources (the plan-wide memo of clean strings), a secret
 * under a `__proto__` key and under a sensitivity mask of the wrong shape (the one-walk
 * pre-check), each still masked everywhere; and `values` taken from the containers prepareChange
 * built (the rest is known plain) equal to the full plainValue walk on random changes.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../core/decode';
import { extractPlanJson, planJsonUnits } from './plan-json';
import { plainValue, prepareChange } from './plan-values';
import { CORPUS } from '../../../../tests/corpus';

const CORPUS_DIR = fileURLToPath(new URL('tfplan-json/', CORPUS));

/** SHA-256 of JSON.stringify(planJsonUnits(plan, 'terraform')), recorded before the issue-18 work. */
const GOLDEN: Record<string, string> = {
  'checkov-aws-github-oidc-iam-modules.json': 'a8219b6a2ae13aabfda8ab708c420a3a2ec0d39c15fb29412928d9f653bcd92f',
  'checkov-aws-replace-create-delete.json': '3bb5059bafa7825eba7988960dc90ec23173b1ea21da49c12a08ccc4e229aea8',
  'checkov-aws-utf16le-bom-windows.json': '53c63717a7dec9abf4c51f1c2e9130bb0e066011666c9023646761e8dd12d3f7',
  'checkov-gcp-modules.json': '0246b07498f680e9283bc1f2cf1d78492d3c4e8132a659552ace4f98b0f01749',
  'infracost-aws-modules-tf014-large.json': 'c63fba17b090797d4b36a3b8f5cd3fc1d46d4f7529033a06085706ab9f88789f',
  'infracost-azure-firewall.json': '9105109137c047e2bbdde897f87ca9a17e500af595c94e790b24e28fa593db85',
  'infracost-setup-terraform-wrapper-noise.json': 'f0bfbe6bf0509cd15008dcebb59de18e3463d6ce1bf43f7f1c3ecf2a9d8ac7fb',
  'terraform-equivalence-fully-populated-complex-update.json': '1adb9b9ecfd00d150ea015f31f053bd78b8dce507386061900fc9580baaaa04e',
  'terraform-showjson-basic-delete.json': 'bfcd65f91aa512da5627b34dbacc8f175dc9ac9d0381804286bd4a36764de0d6',
  'terraform-showjson-drift.json': '3a0527cb58eb65439d2e6776076db9452ad8fe92802903db0ccf7b03d214c44a',
  'terraform-showjson-sensitive-values.json': '1362003bad87a74ff4eb5e43805303c747e0ad336c765de328963a0a0eefe3f3',
  'tfcompliance-aws-deletes-drift-issue522.json': 'ee4494aeba51cc4c89d20646deaadbb5fae603402393956e6c5f43b2d8c8ded8',
  'bench-style x3': '5a561474b8e31e8a214fa0713f677012b5fcd914770deeb42c39d3555b1bc04c', // 246 units
};

type Json = Record<string, unknown>;

function corpusPlans(): { file: string; plan: Json }[] {
  return readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ file, plan: extractPlanJson(decodeText(readFileSync(join(CORPUS_DIR, file)))) }));
}

/** Every corpus change, `copies` times, renamed `<type>.bench_<n>` (root module), in corpus order. */
function benchStylePlan(copies: number): Json {
  const source = corpusPlans().flatMap(({ plan }) => (Array.isArray(plan.resource_changes) ? (plan.resource_changes as Json[]) : []));
  const changes: Json[] = [];
  for (let n = 0; n < source.length * copies; n += 1) {
    const rc = source[n % source.length];
    const type = typeof rc.type === 'string' ? rc.type : 'null_resource';
    const name = `bench_${n}`;
    const mode = rc.mode === 'data' ? 'data' : 'managed';
    const { module_address: _m, index: _i, previous_address: _p, deposed: _d, ...rest } = rc;
    changes.push({ ...rest, address: mode === 'data' ? `data.${type}.${name}` : `${type}.${name}`, name, mode, type });
  }
  return JSON.parse(
    JSON.stringify({ format_version: '1.2', terraform_version: '1.9.0', planned_values: { root_module: {} }, resource_changes: changes }),
  ) as Json;
}

function digest(units: unknown): string {
  return createHash('sha256').update(JSON.stringify(units)).digest('hex');
}

describe('plan-JSON units are byte-identical to the pre-issue-18 code', () => {
  it.each(corpusPlans().map((p) => [p.file, p.plan] as const))('corpus %s', (file, plan) => {
    expect(digest(planJsonUnits(plan, 'terraform'))).toBe(GOLDEN[file]);
  });

  it('a bench-style plan (every corpus change three times under new addresses)', () => {
    expect(digest(planJsonUnits(benchStylePlan(3), 'terraform'))).toBe(GOLDEN['bench-style x3']);
  });

  it('records a digest for every corpus plan', () => {
    expect(
      Object.keys(GOLDEN)
        .filter((k) => k.endsWith('.json'))
        .sort(),
    ).toEqual(corpusPlans().map((p) => p.file));
  });
});

describe('secret-scan shortcuts let no secret through', () => {
  const URL_SECRET = 'hunter2-url-pass';
  const KEY_SECRET = 'hunter2-attribute';
  const change = (address: string, after: Json, extra: Json = {}): Json => ({
    address,
    mode: 'managed',
    type: 'aws_db_instance',
    name: address.split('.')[1],
    provider_name: 'registry.terraform.io/hashicorp/aws',
    change: { actions: ['create'], before: null, after, after_unknown: {}, before_sensitive: false, after_sensitive: {}, ...extra },
  });
  const units = (changes: Json[]) => planJsonUnits(JSON.parse(JSON.stringify({ format_version: '1.2', resource_changes: changes })) as Json, 'terraform');
  const leaks = (u: { body: string; metadata: Json }): boolean =>
    [u.body, JSON.stringify(u.metadata)].some((t) => t.includes(URL_SECRET) || t.includes(KEY_SECRET));

  it('masks the same secret in every resource that repeats it (clean-string memo)', () => {
    const url = `postgres://admin:${URL_SECRET}@db.internal:5432/app`;
    const plain = 'a clean description long enough to be scanned';
    const out = units(Array.from({ length: 4 }, (_, i) => change(`aws_db_instance.d${i}`, { description: plain, endpoint: url, password: KEY_SECRET })));
    expect(out).toHaveLength(4);
    for (const u of out) {
      expect(leaks(u)).toBe(false);
      expect(u.body).toContain('(sensitive value)');
      expect((u.metadata.plaintext_secrets as unknown[]).length).toBeGreaterThanOrEqual(2);
    }
  });

  it('masks a secret under a `__proto__` key and under a sensitivity mask of the wrong shape', () => {
    const proto = JSON.parse(`{"settings": {"__proto__": {"password": "${KEY_SECRET}"}, "url": "https://u:${URL_SECRET}@h.example/x"}}`) as Json;
    const out = units([
      change('aws_db_instance.p', proto),
      change(
        'aws_db_instance.m',
        { tags: { token: KEY_SECRET }, list: [`https://u:${URL_SECRET}@h.example/x`] },
        { after_sensitive: { tags: [false], list: { 0: false } } },
      ),
    ]);
    for (const u of out) expect(leaks(u)).toBe(false);
  });
});

describe('prepareChange values shortcut', () => {
  it('equals the full plainValue(after) walk on random changes (JSON strings, unknown masks of any shape)', () => {
    let seed = 0x18;
    const rand = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 4294967296;
    };
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
    const value = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.35) return pick(['x', '{"a":[1,{"b":"c"}]}', '[1,2]', 7, true, null, 'multi\nline', '']);
      if (r < 0.65) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [pick(['a', 'b', 'c', `k${i}`]), value(depth + 1)]));
    };
    const mask = (depth: number): unknown => {
      const r = rand();
      if (depth > 3 || r < 0.4) return pick([true, false, false]);
      if (r < 0.7) return Array.from({ length: Math.floor(rand() * 5) }, () => mask(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rand() * 4) }, (_, i) => [pick(['a', 'b', 'c', `k${i}`]), mask(depth + 1)]));
    };
    let compared = 0;
    for (let n = 0; n < 3000; n += 1) {
      const change = JSON.parse(
        JSON.stringify({ actions: ['update'], before: value(0), after: value(0), after_unknown: mask(0), before_sensitive: false, after_sensitive: false }),
      ) as Json;
      let prepared: ReturnType<typeof prepareChange>;
      try {
        prepared = prepareChange(change);
      } catch {
        continue; // a mask that does not fit its value: planJsonUnits answers 422 for those
      }
      expect(JSON.stringify(prepared.values)).toBe(JSON.stringify(plainValue(prepared.after)));
      compared += 1;
    }
    expect(compared).toBeGreaterThan(2000);
  });
});
