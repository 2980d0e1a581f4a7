import { silentLogger } from '@planwarden/engine/core/logger';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import { SecretBox } from '@planwarden/engine/llm/secret-box';
import { openStore } from '@planwarden/engine/store/open-store';
import { createStores, ensureSchema } from '@planwarden/engine/stores';
import { afterEach, describe, expect, it } from 'vitest';
import { JobRunner } from './runner';

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
  unhandled.length = 0;
});

async function runnerWhoseClaimsFail(): Promise<{ runner: JobRunner; errors: unknown[]; claims: () => number; release: () => void }> {
  const store = await openStore({ backend: 'memory' });
  await ensureSchema(store);
  const stores = createStores(store, new SecretBox('runner-test-secret-000000000000'));
  const errors: unknown[] = [];
  let claims = 0;
  let release = () => {};
  const gate = new Promise<void>((resolve) => (release = resolve));
  // The store closing under a poll: the claim fails after it started.
  stores.jobs.unsafeClaimNext = async () => {
    claims += 1;
    await gate;
    throw new Error('Operation interrupted because client was closed');
  };
  const ctx: EngineContext = {
    stores,
    analyzers: { list: () => [], get: () => undefined },
    now: () => new Date(),
    log: { ...silentLogger, error: (...args: unknown[]) => errors.push(args) } as EngineContext['log'],
  };
  const runner = new JobRunner({
    ctx,
    settings: () => ({ stuck_timeout_minutes: 60, sweep_interval_hours: 1 }) as never,
    providerFor: () => {
      throw new Error('no provider in this test');
    },
    leaseSeconds: 30,
    pollIntervalMs: 60_000,
    sweepTimer: false,
  });
  return { runner, errors, claims: () => claims, release };
}

describe('the job runner and a failing store', () => {
  it('stop waits for the claim in flight, and its failure after stop is neither thrown nor unhandled', async () => {
    process.on('unhandledRejection', onUnhandled);
    const { runner, errors, claims, release } = await runnerWhoseClaimsFail();
    await runner.start();
    expect(claims()).toBe(1); // start claims at once
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false); // still waiting for the claim's store call
    release();
    await stopping;
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
    expect(errors).toEqual([]); // a failure after stop is the closing store, not worth an error line
  });

  it('a claim failing while the runner runs is logged, and the next poll may claim again', async () => {
    process.on('unhandledRejection', onUnhandled);
    const { runner, errors, claims, release } = await runnerWhoseClaimsFail();
    release();
    await runner.start();
    await runner.idle();
    expect(unhandled).toEqual([]);
    expect(errors.length).toBeGreaterThan(0);
    expect(JSON.stringify(errors[0])).toMatch(/job claim failed/);
    await runner.idle();
    expect(claims()).toBeGreaterThan(1);
    await runner.stop();
  });
});
