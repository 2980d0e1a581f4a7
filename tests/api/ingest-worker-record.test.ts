/**
 * Issue 18: on a SQLite file store, a large ingest is split, recorded and serialised in the
 * ingest worker, with its own connection; the event loop only streams the text. Over real HTTP:
 * the reply is byte for byte what the analyzer's units serialise to, the resources are stored
 * (and shared across namespaces), concurrent ingests of the same plan both land, an input with
 * nothing to record is refused without a trace, and a large analyze request uses the same path.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAnalyzerRegistry } from '../../engine/src/analyzers/registry';
import { WORKER_MIN_CHARS } from '../../engine/src/ingest/worker-pool';
import { corpusFile, startTestServer, waitForJob, type TestServer } from '../helpers/test-server';

const dataDir = mkdtempSync(join(tmpdir(), 'planwarden-ingest-worker-'));
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ overrides: { data_dir: dataDir, storage: { backend: 'sqlite' } } });
});
afterAll(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** `copies` × the large corpus plan's resource changes, each copy under its own addresses. */
function bigPlan(copies: number, tag = ''): string {
  const plan = JSON.parse(corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString('utf8')) as { resource_changes: { address: string }[] };
  const changes = plan.resource_changes;
  plan.resource_changes = Array.from({ length: copies }, (_, i) => changes.map((rc) => ({ ...rc, address: `${rc.address}_${tag}${i}` }))).flat();
  return JSON.stringify(plan);
}

/** The units as the analyzer produces them in this process, tagged as the ingest reply shows them. */
function expectedUnits(raw: string): unknown[] {
  const units = createAnalyzerRegistry().get('terraform')!.ingest!(raw);
  return units.map((u) => ({ ...u, metadata: { ...u.metadata, analyzer: 'terraform' } }));
}

async function ingest(namespace: string, body: string): Promise<Response> {
  return server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
}

describe('ingest recorded by the worker (sqlite file store)', () => {
  it('replies with exactly the units’ JSON and stores every unit once, shared across namespaces', async () => {
    const raw = bigPlan(8);
    expect(raw.length).toBeGreaterThan(WORKER_MIN_CHARS); // the worker path, not the inline one
    const res = await ingest('rec-a', raw);
    expect(res.status).toBe(201);
    const text = await res.text();
    expect(text).toBe(JSON.stringify(expectedUnits(raw)));
    const units = JSON.parse(text) as { hash: string; body: string }[];

    const listed = (await (await server.api('/rec-a/resources')).json()) as { hash: string }[];
    expect(listed.map((r) => r.hash)).toEqual(units.map((u) => u.hash));
    const one = (await (await server.api(`/resource/${units[7].hash}`)).json()) as { value: { body: string } };
    expect(one.value.body).toBe(units[7].body);

    // The same plan in a second namespace: same hashes, the resources are not duplicated.
    const again = await ingest('rec-b', raw);
    expect(again.status).toBe(201);
    expect((JSON.parse(await again.text()) as { hash: string }[]).map((u) => u.hash)).toEqual(units.map((u) => u.hash));
    const namespaces = (await (await server.api('/namespaces')).json()) as { namespace: string }[];
    expect(namespaces.map((n) => n.namespace)).toEqual(expect.arrayContaining(['rec-a', 'rec-b']));
    const next = await server.api('/rec-b/resource/next');
    expect(next.status).toBe(200);
  });

  it('records both of two concurrent ingests of the same new plan', async () => {
    const raw = bigPlan(6, 'c');
    const [a, b] = await Promise.all([ingest('rec-c1', raw), ingest('rec-c2', raw)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    const [ua, ub] = [JSON.parse(await a.text()) as { hash: string }[], JSON.parse(await b.text()) as { hash: string }[]];
    expect(ub.map((u) => u.hash)).toEqual(ua.map((u) => u.hash));
    for (const ns of ['rec-c1', 'rec-c2']) {
      const listed = (await (await server.api(`/${ns}/resources`)).json()) as unknown[];
      expect(listed).toHaveLength(ua.length);
    }
  });

  it('refuses a large input with nothing to record (422) and creates no namespace', async () => {
    const raw = JSON.stringify({ format_version: '1.2', resource_changes: [], padding: 'x'.repeat(WORKER_MIN_CHARS) });
    const res = await ingest('rec-empty', raw);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/found no resources/);
    const namespaces = (await (await server.api('/namespaces')).json()) as { namespace: string }[];
    expect(namespaces.map((n) => n.namespace)).not.toContain('rec-empty');
  });

  it('decodes a large UTF-16 body in the worker, and refuses one that is only whitespace (422)', async () => {
    const raw = bigPlan(2, 'u');
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(raw, 'utf16le')]);
    const res = await ingest('rec-utf16', utf16 as unknown as string);
    expect(res.status).toBe(201);
    expect(await res.text()).toBe(JSON.stringify(expectedUnits(raw)));
    const blank = await ingest('rec-blank', ' \n'.repeat(WORKER_MIN_CHARS));
    expect(blank.status).toBe(422);
    expect(await blank.json()).toEqual({ detail: 'The request body is empty' });
  });

  it('a large checks-only analyze request records through the worker and analyses every unit', async () => {
    const raw = bigPlan(4, 'z');
    const res = await server.api('/terraform/rec-analyze/analyze', { method: 'POST', json: { raw_input: raw } });
    expect([200, 202]).toContain(res.status);
    const body = (await res.json()) as { job_id: string };
    const job = await waitForJob(server, body.job_id);
    expect(job.status).toBe('done');
    expect(job.resource_count).toBe(expectedUnits(raw).length);
    expect(await server.api('/rec-analyze/resource/next').then((r) => r.status)).toBe(208);
  });
});
