import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Severity } from '../../engine/src/core/payload';
import {
  FINDING_STATUSES,
  FindingStore,
  newFindingDoc,
  type FindingDoc,
  type FindingObservation,
  type FindingStatus,
} from '../../engine/src/findings/finding-store';
import type { Filter, Store } from '../../engine/src/store/port';
import type { LlmCallDoc } from '../../engine/src/usage/llm-call-store';
import { otherOrg } from '../helpers/org-keys';
import { startTestServer, type TestServer } from '../helpers/test-server';

/**
 * GET /findings/summary and GET /orgs/{org}/usage answer from counter documents
 * (docs/decisions.md "Aggregate counters"). Every case compares the HTTP answer with the same
 * figures computed by a full pass over the org's rows, through creation, every status
 * transition, concurrent writes, the rebuild of a missing or invalidated counter, and the
 * purge of an org. A fake clock moves time so the summary's windows cut through days.
 */
const DAY = 86_400_000;
let clock = new Date('2026-06-15T12:00:00.000Z');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ start: { now: () => clock } });
});
afterAll(async () => {
  await server.close();
});

const engine = () => server.services.engine;
const collection = <T extends { _id?: string }>(name: string) => engine().stores.store.collection<T>(name);
const advance = (ms: number) => {
  clock = new Date(clock.getTime() + ms);
};
const SEVERITIES: readonly Severity[] = ['CRITICAL', 'HIGH', 'MEDIUM', 'LOW', 'INFO'];
const RESOLVED = new Set<string>(['acknowledged', 'suppressed', 'false_positive']);

function observation(i: number, prefix = 'r'): FindingObservation {
  return {
    resource_hash: `${prefix}-${i.toString().padStart(4, '0')}`,
    rule_id: `RULE-${i % 3}`,
    resource_address: `aws_s3_bucket.b${i}`,
    severity: SEVERITIES[i % SEVERITIES.length],
    title: `finding ${i}`,
    confidence: 'HIGH',
    initialStatus: i % 4 === 0 ? 'needs_review' : 'open',
  };
}

const observe = (orgId: string, o: FindingObservation) => engine().stores.findings.observe(orgId, o, clock.toISOString());

/** The summary by a full pass over the org's records: what the counters must answer. */
async function fullSummary(orgId: string, days: number) {
  const rows = await collection<FindingDoc>('findings').find({ org_id: orgId });
  const since = new Date(clock.getTime() - days * DAY).toISOString();
  const byStatus = Object.fromEntries(FINDING_STATUSES.map((s) => [s, rows.filter((f) => f.status === s).length]));
  return {
    period_days: days,
    total: rows.length,
    by_status: byStatus,
    by_severity_open: Object.fromEntries(SEVERITIES.map((s) => [s, rows.filter((f) => f.status === 'open' && f.severity === s).length])),
    new_in_period: rows.filter((f) => f.first_seen >= since).length,
    resolved_in_period: rows.filter((f) => RESOLVED.has(f.status) && f.updated_at !== null && f.updated_at >= since).length,
  };
}

async function summary(days: number, headers?: Record<string, string>) {
  const res = await server.api(`/findings/summary?days=${days}`, { headers });
  expect(res.status).toBe(200);
  return res.json() as Promise<Record<string, unknown>>;
}

/** Every window the assertions look through: one day (cuts through yesterday), a week, the default, the longest. */
async function expectExact(orgId: string, headers?: Record<string, string>) {
  for (const days of [1, 7, 30, 365]) expect(await summary(days, headers)).toEqual(await fullSummary(orgId, days));
}

async function patch(hash: string, ruleId: string, status: FindingStatus, headers?: Record<string, string>) {
  const res = await server.api(`/findings/${hash}/${ruleId}`, { method: 'PATCH', json: { status }, headers });
  expect(res.status).toBe(200);
}

describe('findings summary from counters', () => {
  it('follows creation over days and every status transition, with windows cutting through a day', async () => {
    // Yesterday 06:00 falls outside a one-day window at 12:00 today; yesterday 18:00 inside.
    clock = new Date('2026-06-14T06:00:00.000Z');
    for (let i = 0; i < 10; i += 1) await observe('default', observation(i));
    advance(12 * 3_600_000);
    for (let i = 10; i < 20; i += 1) await observe('default', observation(i));
    advance(18 * 3_600_000);
    for (let i = 0; i < 20; i += 2) await observe('default', observation(i)); // refreshes change no count
    const day = await summary(1);
    expect(day).toMatchObject({ total: 20, new_in_period: 10, resolved_in_period: 0 });
    await expectExact('default');

    // from → to for every ordered pair of statuses, each on its own record, an hour apart.
    let i = 0;
    for (const from of FINDING_STATUSES) {
      for (const to of FINDING_STATUSES) {
        const o = observation(100 + i, 't');
        await observe('default', o);
        await patch(o.resource_hash, o.rule_id, from);
        advance(3_600_000);
        await patch(o.resource_hash, o.rule_id, to);
        i += 1;
      }
    }
    await expectExact('default');
    // A day later the first transitions' resolutions leave the one-day window.
    advance(20 * 3_600_000);
    await expectExact('default');
  });

  it('a window starting inside an hour counts that hour from the rows and the later hours from the hour counter, built or rebuilt', async () => {
    const { orgId, headers } = await otherOrg(server);
    const base = clock.getTime() - (clock.getTime() % 3_600_000) + 3_600_000;
    // Minutes after an hour boundary: two in its first hour, then hours 1, 2, 3 and 10.
    for (const [i, minutes] of [5, 40, 80, 125, 200, 600].entries()) {
      clock = new Date(base + minutes * 60_000);
      await observe(orgId, observation(i, 'h'));
    }
    clock = new Date(base + DAY + 30 * 60_000); // a one-day window starts at minute 30 of the first hour
    expect(await summary(1, headers)).toMatchObject({ total: 6, new_in_period: 5 });
    await expectExact(orgId, headers);
    await engine().stores.findings.invalidateCounts();
    await expectExact(orgId, headers);
  });

  it('loses no increment under concurrent creation and triage', async () => {
    const { orgId, headers } = await otherOrg(server);
    // The first read builds the (empty) counter: every write below goes through its increments.
    expect((await summary(30, headers)).total).toBe(0);
    const base = Array.from({ length: 30 }, (_, i) => observation(i, 'c'));
    await Promise.all(base.map((o) => observe(orgId, o)));
    const writes: Promise<unknown>[] = [];
    for (let round = 0; round < 4; round += 1) {
      for (const [i, o] of base.entries()) writes.push(patch(o.resource_hash, o.rule_id, FINDING_STATUSES[(i + round) % FINDING_STATUSES.length], headers));
      for (let i = 0; i < 10; i += 1) writes.push(observe(orgId, observation(1000 + round * 10 + i, 'c')));
      writes.push(observe(orgId, base[round])); // a concurrent refresh of a record being triaged
    }
    await Promise.all(writes);
    expect((await summary(30, headers)).total).toBe(70);
    await expectExact(orgId, headers);
  });

  it("a unit's findings recorded in one batch count exactly, racing single records, triage and a rebuild; each pair is counted once per observation", async () => {
    const { orgId, headers } = await otherOrg(server);
    const findings = engine().stores.findings;
    const now = () => clock.toISOString();
    // Units of five rules each; a pair observed by a batch and by `observe` at once is created once and refreshed once.
    const unit = (u: number) => Array.from({ length: 5 }, (_, r) => ({ ...observation(u * 5 + r, 'm'), resource_hash: `m-${u}`, rule_id: `RULE-${r}` }));
    const observed = new Map<string, number>();
    const count = (o: FindingObservation) => observed.set(`${o.resource_hash}/${o.rule_id}`, (observed.get(`${o.resource_hash}/${o.rule_id}`) ?? 0) + 1);
    const writes: Promise<unknown>[] = [];
    for (let u = 0; u < 12; u += 1) {
      const batch = unit(u);
      batch.forEach(count);
      if (u % 3 === 0) {
        count(batch[2]);
        writes.push(findings.observe(orgId, batch[2], now()));
      }
      writes.push(findings.observeMany(orgId, [...batch, batch[0]], now())); // a pair twice in one batch is recorded once
    }
    // A pair created by another writer between the batch's read and its insert: the insert fails whole, and the
    // batch's new pairs are recorded one by one (that pair refreshed, not created twice).
    const store = engine().stores.store;
    const late = unit(12);
    late.forEach(count);
    count(late[1]);
    const racing = new FindingStore({
      backend: store.backend,
      collection: (name: string) => {
        const c = store.collection(name);
        if (name !== 'findings') return c;
        const distinct = async (path: string, filter: Filter) => {
          const existing = await c.distinct(path, filter);
          await findings.observe(orgId, late[1], now());
          return existing;
        };
        return new Proxy(c, {
          get: (target, key) => {
            if (key === 'distinct') return distinct;
            const value: unknown = Reflect.get(target, key, target);
            return typeof value === 'function' ? value.bind(target) : value;
          },
        });
      },
    } as unknown as Store);
    writes.push(racing.observeMany(orgId, late, now()).then((docs) => expect(docs.map((d) => d.rule_id)).toEqual(['RULE-0', 'RULE-2', 'RULE-3', 'RULE-4'])));
    await Promise.all(writes);
    await expectExact(orgId, headers);
    // Half of each unit seen again beside new pairs (one batch of refreshes and inserts), with triage and a rebuild racing it.
    await findings.invalidateCounts();
    const again = Array.from({ length: 12 }, (_, u) => [
      ...unit(u).slice(0, 3),
      { ...observation(900 + u, 'm'), resource_hash: `m-${u}`, rule_id: 'RULE-NEW' },
    ]);
    again.flat().forEach(count);
    const created = await Promise.all([
      ...again.map((batch) => findings.observeMany(orgId, batch, now())),
      summary(30, headers),
      patch('m-1', 'RULE-4', 'acknowledged', headers),
    ]);
    expect(created.slice(0, 12).map((docs) => (docs as FindingDoc[]).map((d) => d.rule_id))).toEqual(Array.from({ length: 12 }, () => ['RULE-NEW']));
    await expectExact(orgId, headers);
    const rows = await collection<FindingDoc>('findings').find({ org_id: orgId });
    expect(Object.fromEntries(rows.map((f) => [`${f.resource_hash}/${f.rule_id}`, f.occurrence_count]))).toEqual(Object.fromEntries(observed));
    expect(await collection('finding_counters').findOne({ _id: orgId })).toMatchObject({ ready: true, pending: 0 });
  });

  it('builds a missing counter from the existing records, and rebuilds an invalidated one while writes go on', async () => {
    const { orgId, headers } = await otherOrg(server);
    // Records written straight into the collection, as an existing database holds them: no counter yet.
    const rows = Array.from({ length: 40 }, (_, i) => {
      const seen = new Date(clock.getTime() - (i % 10) * 0.7 * DAY).toISOString();
      const doc = newFindingDoc(orgId, observation(i, 'b'), seen);
      const status = FINDING_STATUSES[i % FINDING_STATUSES.length];
      return { ...doc, status, ...(status === 'open' ? {} : { updated_by: 'import', updated_at: seen }) };
    });
    await collection<FindingDoc>('findings').insertMany(rows);
    expect(await collection('finding_counters').count({ org_id: orgId })).toBe(0);
    await expectExact(orgId, headers);

    // Invalidated (as after a platform-wide purge), then read while triage and creation run.
    await engine().stores.findings.invalidateCounts();
    const writes = rows.slice(0, 20).map((r, i) => patch(r.resource_hash, r.rule_id, FINDING_STATUSES[(i + 2) % FINDING_STATUSES.length], headers));
    const reads = [summary(30, headers), summary(7, headers)];
    const creations = Array.from({ length: 10 }, (_, i) => observe(orgId, observation(500 + i, 'b')));
    // Another replica on the same store: its writers do not wait for this process's rebuild.
    const store = engine().stores.store;
    const replica = new FindingStore({ backend: store.backend, collection: (name: string) => store.collection(name) } as unknown as Store);
    const now = () => clock.toISOString();
    const replicaWrites = rows.slice(20).map(async (r, i) => {
      await replica.observe(orgId, observation(700 + i, 'b'), now());
      await replica.update(orgId, r.resource_hash, r.rule_id, {
        status: FINDING_STATUSES[i % FINDING_STATUSES.length],
        updated_by: 'replica',
        updated_at: now(),
      });
    });
    await Promise.all([...writes, ...reads, ...creations, ...replicaWrites]);
    await expectExact(orgId, headers);
    expect(await collection('finding_counters').findOne({ _id: orgId })).toMatchObject({ ready: true, pending: 0 });
  });

  it('a writer that died between its announcement and its deltas delays the rebuild a minute; answers stay exact', async () => {
    const { orgId, headers } = await otherOrg(server);
    for (let i = 0; i < 6; i += 1) await observe(orgId, observation(i, 'k'));
    // What a kill -9 inside FindingStore.update leaves: an announcement never withdrawn, on a counter to rebuild.
    await collection('finding_counters').updateOne({ _id: orgId }, { $inc: { pending: 1 }, $set: { ready: false } });
    await expectExact(orgId, headers);
    expect(await collection('finding_counters').findOne({ _id: orgId })).toMatchObject({ ready: false, pending: 1 });
    advance(61_000);
    await expectExact(orgId, headers);
    expect(await collection('finding_counters').findOne({ _id: orgId })).toMatchObject({ ready: true, pending: 0 });
  });

  it("purging an org removes its counters and leaves another org's figures alone", async () => {
    const { orgId, headers } = await otherOrg(server);
    for (let i = 0; i < 5; i += 1) await observe(orgId, observation(i, 'p'));
    await engine().stores.llmCalls.record(orgId, [usageCall(clock.toISOString(), 0.5)]);
    expect((await summary(30, headers)).total).toBe(5);
    expect((await usage(orgId, headers)).event_count).toBe(1);
    const before = await summary(30);

    expect((await server.api(`/admin/organizations/${orgId}`, { method: 'DELETE' })).status).toBe(200);
    advance(31 * DAY);
    const purge = await server.api('/admin/organizations/purge-pending', { method: 'POST' });
    expect(purge.status).toBe(200);
    for (const name of ['finding_counters', 'usage_counters', 'findings', 'llm_calls']) expect(await collection(name).count({ org_id: orgId })).toBe(0);
    advance(-31 * DAY);
    expect(await summary(30)).toEqual(before);
  });
});

function usageCall(createdAt: string, cost: number, error: string | null = null, key?: string): Omit<LlmCallDoc, '_id' | 'org_id'> {
  return {
    job_id: 'job-agg',
    resource_hash: `h-${randomUUID()}`,
    llm_backend: 'openai',
    model: 'gpt-4o-mini',
    attempt: 1,
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: cost,
    duration_ms: 1,
    error,
    created_at: createdAt,
    ...(key === undefined ? {} : { idempotency_key: key }),
  };
}

async function usage(orgId: string, headers?: Record<string, string>) {
  const res = await server.api(`/orgs/${orgId}/usage`, { headers });
  expect(res.status).toBe(200);
  return res.json() as Promise<Record<string, unknown>>;
}

/** The month's figures by a full pass over the org's calls. */
async function fullUsage(orgId: string) {
  const month = clock.toISOString().slice(0, 7);
  const calls = (await collection<LlmCallDoc>('llm_calls').find({ org_id: orgId })).filter((c) => c.created_at.startsWith(month));
  return {
    total_cost_usd: Math.round(calls.reduce((s, c) => s + c.cost_usd, 0) * 1e6) / 1e6,
    event_count: calls.length,
    resource_count: calls.filter((c) => c.error === null).length,
  };
}

describe('usage from monthly counters', () => {
  it('counts concurrent metering once per stored call, the same call metered twice once', async () => {
    const { orgId, headers } = await otherOrg(server);
    expect((await usage(orgId, headers)).event_count).toBe(0); // builds the counter: the writes below increment it
    const now = clock.toISOString();
    const batches = Array.from({ length: 20 }, (_, i) => [
      usageCall(now, 0.125, null, `job-agg:h${i}:1`),
      usageCall(now, 0.25, i % 2 === 0 ? 'rate limited' : null),
    ]);
    // Every keyed call metered twice at once (two runners of one job): stored once. Hand-computed:
    // 20 keyed + 40 plain events; 20 keyed + 20 plain successful; 20 × 0.125 + 40 × 0.25 = 12.5.
    const stored = await Promise.all([...batches, ...batches].map((calls) => engine().stores.llmCalls.record(orgId, calls)));
    expect(stored.reduce((a, b) => a + b, 0)).toBe(60);
    expect(await usage(orgId, headers)).toMatchObject({ event_count: 60, resource_count: 40, total_cost_usd: 12.5 });
    expect(await usage(orgId, headers)).toMatchObject(await fullUsage(orgId));
  });

  it('builds a missing month counter from the calls already stored', async () => {
    const { orgId, headers } = await otherOrg(server);
    const lastMonth = new Date(clock.getTime() - 40 * DAY).toISOString();
    const calls = [
      ...Array.from({ length: 15 }, (_, i) => usageCall(clock.toISOString(), 0.01 * (i + 1), i % 5 === 0 ? 'timeout' : null)),
      usageCall(lastMonth, 99),
    ].map((c) => ({ ...c, org_id: orgId }));
    await collection<LlmCallDoc>('llm_calls').insertMany(calls);
    expect(await collection('usage_counters').count({ org_id: orgId })).toBe(0);
    // Hand-computed: 0.01 × (1 + … + 15) = 1.2; 15 events; 3 failed.
    expect(await usage(orgId, headers)).toMatchObject({ total_cost_usd: 1.2, event_count: 15, resource_count: 12 });
    await engine().stores.llmCalls.record(orgId, [usageCall(clock.toISOString(), 0.3)]);
    expect(await usage(orgId, headers)).toMatchObject({ total_cost_usd: 1.5, event_count: 16, resource_count: 13 });
    expect(await usage(orgId, headers)).toMatchObject(await fullUsage(orgId));
  });
});
