import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../errors';
import { FairQueue } from './template-sandbox-queue';

const limits = { poolSize: 2, maxConcurrentPerOrg: 1, maxQueuedPerOrg: 2, maxQueued: 5 };

describe('FairQueue (template sandbox admission)', () => {
  it('runs at most maxConcurrentPerOrg per org and serves orgs round-robin', () => {
    const q = new FairQueue<string>(limits, 5);
    q.enqueue('b', 'b1'); q.enqueue('b', 'b2'); q.enqueue('a', 'a1');
    expect(q.take()).toEqual({ orgId: 'b', job: 'b1' });
    // b is at its cap: a's job goes next although b queued first.
    expect(q.take()).toEqual({ orgId: 'a', job: 'a1' });
    expect(q.take()).toBeNull();
    q.done('b');
    expect(q.take()).toEqual({ orgId: 'b', job: 'b2' });
  });

  it('refuses an org over its queue length, or any org over the total, with 429 and Retry-After', () => {
    const q = new FairQueue<string>(limits, 5);
    q.enqueue('b', 'b1'); q.enqueue('b', 'b2');
    const refused = (() => { try { q.enqueue('b', 'b3'); return null; } catch (error) { return error; } })();
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).status).toBe(429);
    expect((refused as TooManyRequestsError).retryAfterSeconds).toBe(5);
    q.enqueue('a', 'a1'); q.enqueue('a', 'a2'); q.enqueue('c', 'c1');
    expect(() => q.enqueue('d', 'd1')).toThrow(TooManyRequestsError);
    q.take();
    expect(() => q.enqueue('d', 'd1')).not.toThrow();
  });
});
