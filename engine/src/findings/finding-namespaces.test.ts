/**
 * The riskiest-namespaces ranking (GET /findings/namespaces) read in timed pages: the same answer
 * as counting the newest RISK_SCAN_LIMIT open CRITICAL and HIGH records read in one go, whether
 * the org has fewer records than that or more (then `partial`), on the memory and sqlite-file
 * backends (and MongoDB when MONGODB_URI is set).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EngineContext } from '../context/engine-context';
import { silentLogger } from '../core/logger';
import { SEVERITY_ORDER } from '../core/payload';
import type { NamespaceResourceDoc } from '../ingest/resource-store';
import { SecretBox } from '../llm/secret-box';
import { openStore } from '../store/open-store';
import type { Store } from '../store/port';
import { createStores, ensureSchema } from '../stores';
import { RISK_SCAN_LIMIT, riskiestNamespaces } from './finding-namespaces';
import { type FindingDoc, FINDING_STATUSES, newFindingDoc } from './finding-store';

const ORG = 'org-a';
const NAMESPACES = ['prod', 'staging', 'dev', 'sandbox', 'edge'];
// docdb runs when MONGODB_URI is set, as in the conformance suite.
const MONGODB_URI = process.env.MONGODB_URI;
const BACKENDS = ['memory', 'sqlite', ...(MONGODB_URI ? (['docdb'] as const) : [])] as const;
let store: Store | undefined;
let dir: string | undefined;
let database: string | undefined;

afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (database) {
    const { MongoClient } = await import('mongodb');
    const client = await new MongoClient(MONGODB_URI as string).connect();
    await client.db(database).dropDatabase();
    await client.close();
  }
  store = undefined;
  dir = undefined;
  database = undefined;
});

async function open(backend: (typeof BACKENDS)[number]): Promise<EngineContext> {
  if (backend === 'sqlite') dir = mkdtempSync(join(tmpdir(), 'planwarden-risk-'));
  if (backend === 'docdb') database = `planwarden_test_${randomUUID().slice(0, 8)}`;
  store = await openStore({ backend, dataDir: dir, uri: MONGODB_URI, database });
  await ensureSchema(store);
  return {
    stores: createStores(store, new SecretBox('finding-namespaces-test-secret-0')),
    analyzers: { list: () => [], get: () => undefined },
    now: () => new Date('2026-03-01T10:00:00.000Z'),
    log: silentLogger,
  };
}

/**
 * `resources` resources with four rules each, in a mix of statuses and severities (`dense`:
 * nearly all open CRITICAL or HIGH), many sharing one last_seen (an analysis stamps all its
 * records at once), each resource in one to three namespaces; plus another org's records, which
 * never count.
 */
async function seed(s: Store, resources: number, dense = false): Promise<void> {
  const findings: FindingDoc[] = [];
  const members: NamespaceResourceDoc[] = [];
  for (let r = 0; r < resources; r += 1) {
    const hash = r.toString(16).padStart(64, '0');
    for (let rule = 0; rule < 4; rule += 1) {
      const i = r * 4 + rule;
      const seen = new Date(Date.parse('2026-02-01T00:00:00.000Z') + Math.floor(i / 50) * 60_000).toISOString();
      const o = {
        resource_hash: hash,
        rule_id: `RULE-${rule}`,
        resource_address: `aws_s3_bucket.b${r}`,
        severity: dense ? SEVERITY_ORDER[i % 2] : SEVERITY_ORDER[(r + rule) % 3 === 0 ? 0 : (i * 7) % SEVERITY_ORDER.length],
        title: 'A bucket',
        confidence: 'HIGH' as const,
        initialStatus: FINDING_STATUSES[(dense ? i % 9 !== 0 : (i * 3) % 7 < 4) ? 0 : (i * 3) % FINDING_STATUSES.length],
      };
      findings.push(newFindingDoc(ORG, o, seen));
      if (i % 5 === 0) findings.push(newFindingDoc('org-b', o, seen));
    }
    for (let n = 0; n <= r % 3; n += 1) {
      const namespace = NAMESPACES[(r + n * 2) % NAMESPACES.length];
      members.push({ org_id: ORG, namespace, hash, analyzer: 'terraform', position: `x#${r}`, analyzed: true, created_at: '2026-02-01T00:00:00.000Z' });
    }
  }
  await s.collection<FindingDoc>('findings').insertMany(findings);
  await s.collection<NamespaceResourceDoc>('namespace_resources').insertMany(members);
}

/** The ranking from one read of the newest RISK_SCAN_LIMIT open records per severity (the answer before timed pages). */
async function reference(ctx: EngineContext, limit: number) {
  const s = store!;
  const tally = new Map<string, { namespace: string; open_critical: number; open_high: number }>();
  let partial = false;
  for (const [severity, field] of [
    ['CRITICAL', 'open_critical'],
    ['HIGH', 'open_high'],
  ] as const) {
    const records = await s
      .collection<FindingDoc>('findings')
      .find({ org_id: ORG, status: 'open', severity }, { sort: { last_seen: -1, resource_hash: 1, rule_id: 1 }, limit: RISK_SCAN_LIMIT });
    partial ||= records.length === RISK_SCAN_LIMIT;
    const byHash = await ctx.stores.resources.namespacesOfMany(ORG, [...new Set(records.map((f) => f.resource_hash))]);
    for (const f of records) {
      for (const namespace of byHash.get(f.resource_hash) ?? []) {
        const row = tally.get(namespace) ?? { namespace, open_critical: 0, open_high: 0 };
        row[field] += 1;
        tally.set(namespace, row);
      }
    }
  }
  const ranked = [...tally.values()].sort(
    (a, b) => b.open_critical - a.open_critical || b.open_high - a.open_high || (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0),
  );
  return { namespaces: ranked.slice(0, limit), partial };
}

describe.each(BACKENDS)('riskiest namespaces read in timed pages (%s)', (backend) => {
  it('counts every open CRITICAL and HIGH record of an org under the scan limit', async () => {
    const ctx = await open(backend);
    await seed(store!, 900);
    const answer = await riskiestNamespaces(ctx, ORG, 10);
    expect(answer.partial).toBe(false);
    expect(answer.namespaces.length).toBe(NAMESPACES.length);
    expect(answer.namespaces[0].open_critical).toBeGreaterThan(100);
    expect(answer).toEqual(await reference(ctx, 10));
    expect(await riskiestNamespaces(ctx, ORG, 2)).toEqual(await reference(ctx, 2));
  });

  it('counts the newest RISK_SCAN_LIMIT of each severity, and says so, past the limit', async () => {
    const ctx = await open(backend);
    await seed(store!, Math.ceil((RISK_SCAN_LIMIT * 2.5) / 4), true);
    const answer = await riskiestNamespaces(ctx, ORG, 10);
    expect(answer.partial).toBe(true);
    expect(answer).toEqual(await reference(ctx, 10));
  }, 60_000);
});
