/**
 * The two figures issue 2 asks for, measured over HTTP against the real server (sqlite storage
 * in a temp dir, as `npm start` runs it):
 *  1. units/s ingesting the largest corpus plan;
 *  2. wall time of an async job of 50 units against the fake provider with 200 ms latency and
 *     max_concurrent_units 4 (ideal: 50 / 4 × 200 ms = 2.5 s).
 * Run: npx tsx bench/main-job-figures.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../engine/src/core/logger';
import { loadConfig } from '../server/src/config/config';
import { startServer } from '../server/src/server';
import { startFakeProvider } from '../tests/fakes/llm-provider-server';
import { CORPUS as CORPUS_ROOT } from '../tests/corpus';

const CORPUS = new URL('tfplan-json/', CORPUS_ROOT);
const LARGEST = 'infracost-aws-modules-tf014-large.json';

/** A plan of `count` distinct resource changes, cloned from a corpus plan under new addresses. */
function replicatedPlan(count: number): string {
  const plan = JSON.parse(readFileSync(new URL('checkov-aws-github-oidc-iam-modules.json', CORPUS), 'utf8')) as { resource_changes: Record<string, unknown>[] };
  const source = plan.resource_changes;
  const changes = Array.from({ length: count }, (_, i) => {
    const rc = structuredClone(source[i % source.length]);
    rc.name = `${String(rc.name)}_${i}`;
    rc.address = `${String(rc.address)}_${i}`;
    return rc;
  });
  return JSON.stringify({ ...plan, resource_changes: changes });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-bench-'));
  const fake = await startFakeProvider();
  const config = loadConfig({
    env: {},
    cwd: '/nonexistent',
    overrides: {
      server: { host: '127.0.0.1', port: 0, sync_analysis_max_units: 5 },
      storage: { backend: 'sqlite' },
      data_dir: dataDir,
      logging: { level: 'silent' },
      analysis: { max_concurrent_units: 4 },
      llm: { openai_base_url: fake.openaiBaseUrl },
    },
  });
  const server = await startServer(config, { log: silentLogger, pollIntervalMs: 20 });
  const api = `${server.url}/api/v1`;
  try {
    // 1. ingest throughput on the largest corpus plan
    const raw = readFileSync(new URL(LARGEST, CORPUS));
    const rounds = 20;
    let units = 0;
    const t0 = performance.now();
    for (let i = 0; i < rounds; i += 1) {
      const res = await fetch(`${api}/terraform/ingest-bench-${i}/ingest`, { method: 'POST', body: new Uint8Array(raw) });
      units += ((await res.json()) as unknown[]).length;
    }
    const seconds = (performance.now() - t0) / 1000;
    console.log(
      `ingest ${LARGEST} (${(raw.length / 1024).toFixed(0)} KB, ${units / rounds} units) x${rounds} over HTTP: ${(units / seconds).toFixed(0)} units/s, ${((seconds * 1000) / rounds).toFixed(1)} ms per ingest`,
    );

    // 2. async job of 50 units, 200 ms provider latency, 4 in flight
    fake.setLatency(200);
    const plan = replicatedPlan(50);
    const started = performance.now();
    const res = await fetch(`${api}/terraform/job-bench/analyze`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ llm_backend: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench', raw_input: plan }),
    });
    const { job_id } = (await res.json()) as { job_id: string };
    let job: { status: string; processed_count: number; total_count: number } = { status: 'queued', processed_count: 0, total_count: 0 };
    for (let i = 0; i < 3000 && !['done', 'failed', 'cancelled'].includes(job.status); i += 1) {
      await new Promise((r) => setTimeout(r, 10));
      job = (await (await fetch(`${api}/jobs/${job_id}`)).json()) as typeof job;
    }
    const wall = (performance.now() - started) / 1000;
    const ideal = (50 / 4) * 0.2;
    console.log(
      `async job, 50 units, 200 ms latency, max_concurrent_units 4: ${job.status} ${job.processed_count}/${job.total_count} in ${wall.toFixed(2)} s (ideal ${ideal.toFixed(2)} s, ${((ideal / wall) * 100).toFixed(0)}% of ideal); LLM calls ${fake.requests.length}`,
    );
  } finally {
    await server.close();
    await fake.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
