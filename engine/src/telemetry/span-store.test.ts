/** The span write buffer (span-store.ts): batched, flushed before reads, never failing the caller. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../core/logger';
import { SqliteStore } from '../store/sqlite/store';
import type { Stores } from '../context/engine-context';
import { SpanStore, type SpanDoc } from './span-store';
import { recordSpan } from './spans';

const ORG = 'org-a';

function span(n: number, overrides: Partial<SpanDoc> = {}): SpanDoc {
  return {
    span_id: `s${n}`,
    org_id: ORG,
    trace_id: `t${n}`,
    type: 'request',
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    duration_ms: 1,
    key_id: '_anon',
    user_id: null,
    data: { n },
    ...overrides,
  };
}

describe('SpanStore write buffer', () => {
  let store: SqliteStore;
  afterEach(async () => {
    vi.useRealTimers();
    await store.close();
  });

  const stored = () => store.collection<SpanDoc>('spans').count({});

  it('queues spans and writes them in one batch after flushMs', async () => {
    vi.useFakeTimers();
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 250, maxBatch: 500 });
    const insertMany = vi.spyOn(store.collection<SpanDoc>('spans'), 'insertMany');
    for (let i = 0; i < 3; i += 1) spans.insert(span(i));
    expect(spans.pending).toBe(3);
    expect(await stored()).toBe(0);
    await vi.advanceTimersByTimeAsync(250);
    expect(await stored()).toBe(3);
    expect(insertMany).toHaveBeenCalledTimes(1);
    expect(spans.pending).toBe(0);
  });

  it('writes at once when maxBatch spans wait', async () => {
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 60_000, maxBatch: 4 });
    for (let i = 0; i < 5; i += 1) spans.insert(span(i));
    await new Promise((r) => setImmediate(r));
    expect(await stored()).toBe(4);
    expect(spans.pending).toBe(1);
    await spans.flush();
    expect(await stored()).toBe(5);
  });

  it('every read flushes first: a span recorded just before is seen', async () => {
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 60_000 });
    spans.insert(span(1));
    spans.insert(span(2, { type: 'ingest' }));
    expect((await spans.list(ORG, { limit: 10, offset: 0 })).map((s) => s.span_id)).toEqual(['s2', 's1']);
    spans.insert(span(3));
    expect((await spans.since(ORG, '2026-01-01T00:00:00.000Z', 'request')).map((s) => s.span_id).sort()).toEqual(['s1', 's3']);
  });

  it('a failed batch is retried span by span; what still fails is logged and dropped, never thrown', async () => {
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 60_000 });
    const warn = vi.fn();
    spans.insert(span(1), { warn });
    spans.insert({ ...span(2), $bad: 1 } as unknown as SpanDoc); // a reserved key: the port rejects the document
    spans.insert(span(3));
    await expect(spans.flush()).resolves.toBeUndefined();
    expect((await spans.list(ORG, { limit: 10, offset: 0 })).map((s) => s.span_id)).toEqual(['s3', 's1']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({ lost: 1 });

    await store.close();
    spans.insert(span(4));
    await expect(spans.flush()).resolves.toBeUndefined(); // store gone: logged, not thrown
    expect(warn).toHaveBeenCalledTimes(2);
    store = new SqliteStore(':memory:', 'memory'); // for afterEach
  });

  it('recordSpan queues without touching the store and never throws', async () => {
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 60_000 });
    const ctx = { stores: { spans } as unknown as Stores, now: () => new Date('2026-02-01T00:00:00.000Z'), log: silentLogger };
    recordSpan(ctx, { orgId: ORG, traceId: 'abc', type: 'request', durationMs: 2, keyId: '_anon', userId: null, data: { status_code: 200 } });
    expect(await stored()).toBe(0);
    const [s] = await spans.list(ORG, { limit: 1, offset: 0 });
    expect(s).toMatchObject({ org_id: ORG, trace_id: 'abc', timestamp: '2026-02-01T00:00:00.000Z', key_id: '_anon', data: { status_code: 200 } });
    const broken = {
      ...ctx,
      stores: {
        spans: {
          insert: () => {
            throw new Error('boom');
          },
        },
      } as unknown as Stores,
    };
    expect(() => recordSpan(broken, { orgId: ORG, traceId: 'x', type: 'request', durationMs: 1, keyId: null, userId: null, data: {} })).not.toThrow();
  });
  it('purgeOrg deletes stored, buffered and in-flight spans of the org, keeps the others, and records none of it afterwards', async () => {
    store = new SqliteStore(':memory:', 'memory');
    const spans = new SpanStore(store, { flushMs: 60_000 });
    spans.insert(span(1));
    await spans.flush();
    spans.insert(span(2));
    const inFlight = spans.flush(); // a batch being written while the purge starts
    spans.insert(span(3));
    spans.insert(span(4, { org_id: 'org-b' }));
    expect(await spans.purgeOrg(ORG)).toBe(2);
    await inFlight;
    spans.insert(span(5));
    await spans.flush();
    expect(await store.collection<SpanDoc>('spans').count({ org_id: ORG })).toBe(0);
    expect(await store.collection<SpanDoc>('spans').count({ org_id: 'org-b' })).toBe(1);
  });
});
