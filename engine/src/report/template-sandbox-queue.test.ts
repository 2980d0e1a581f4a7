import { describe, expect, it } from 'vitest';
import { TooManyRequestsError } from '../core/errors';
import { FairQueue } from './template-sandbox-queue';

const limits = { poolSize: 2, maxConcurrentPerLane: 1, maxQueuedPerLane: 2, maxQueued: 5 };

describe('FairQueue (template sandbox admission)', () => {
  it('runs at most maxConcurrentPerLane per lane and serves lanes round-robin', () => {
    const q = new FairQueue<string>(limits, 5);
    q.enqueue('b', 'b1');
    q.enqueue('b', 'b2');
    q.enqueue('a', 'a1');
    expect(q.take()).toEqual({ lane: 'b', job: 'b1' });
    // b is at its cap: a's job goes next although b queued first.
    expect(q.take()).toEqual({ lane: 'a', job: 'a1' });
    expect(q.take()).toBeNull();
    q.done('b');
    expect(q.take()).toEqual({ lane: 'b', job: 'b2' });
  });

  it('refuses a lane over its queue length, or any lane over the total, with 429 and Retry-After', () => {
    const q = new FairQueue<string>(limits, 5);
    q.enqueue('b', 'b1');
    q.enqueue('b', 'b2');
    const refused = (() => {
      try {
        q.enqueue('b', 'b3');
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect((refused as TooManyRequestsError).status).toBe(429);
    expect((refused as TooManyRequestsError).retryAfterSeconds).toBe(5);
    q.enqueue('a', 'a1');
    q.enqueue('a', 'a2');
    q.enqueue('c', 'c1');
    expect(() => q.enqueue('d', 'd1')).toThrow(TooManyRequestsError);
    q.take();
    expect(() => q.enqueue('d', 'd1')).not.toThrow();
  });

  it('one account queueing for several of its orgs has one share: its jobs share a lane', () => {
    // The lane is the account (template-sandbox-lane.ts), whichever org each render is for.
    const q = new FairQueue<string>(limits, 5);
    const attacker = 'user:usr_attacker';
    q.enqueue(attacker, 'org1-render');
    q.enqueue(attacker, 'org2-render');
    expect(() => q.enqueue(attacker, 'org3-render')).toThrow(TooManyRequestsError);
    q.enqueue('user:usr_victim', 'victim-render');
    expect(q.take()).toEqual({ lane: attacker, job: 'org1-render' });
    expect(q.take()).toEqual({ lane: 'user:usr_victim', job: 'victim-render' });
    expect(q.take()).toBeNull(); // the attacker's second render waits for its first
  });
});
