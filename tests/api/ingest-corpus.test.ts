import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusFile, corpusFiles, countResourceChanges, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

async function ingest(_path: string, namespace: string, body: RequestInit['body']) {
  return server.api(`/terraform/${namespace}/ingest`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
}

describe('ingest of every corpus plan over HTTP', () => {
  const plans = corpusFiles('tfplan-json', '.json');

  it.each(plans)('%s: one unit per resource_change, identical hashes on re-ingest', async (plan) => {
    const raw = corpusFile(plan);
    const expected = countResourceChanges(raw);
    const first = await ingest(plan, 'corpus-a', new Uint8Array(raw));
    expect(first.status).toBe(201);
    const units = (await first.json()) as { hash: string; name: string; action: string }[];
    expect(units).toHaveLength(expected);
    const again = await ingest(plan, 'corpus-b', new Uint8Array(raw));
    expect(again.status).toBe(201);
    const hashes = ((await again.json()) as { hash: string }[]).map((u) => u.hash);
    expect(hashes).toEqual(units.map((u) => u.hash));
    for (const unit of units) expect(['create', 'update', 'destroy', 'no-op']).toContain(unit.action);
  });

  it('keeps sensitive values out of every stored unit', async () => {
    const raw = corpusFile('tfplan-json/terraform-showjson-sensitive-values.json');
    const res = await ingest('', 'sensitive', new Uint8Array(raw));
    const units = (await res.json()) as { hash: string; body: string }[];
    // "boop" is the value marked sensitive in after_sensitive and the output.
    for (const unit of units) expect(unit.body).not.toContain('boop');
    const stored = (await (await server.api(`/resource/${units[0].hash}`)).json()) as { value: { body: string } };
    expect(stored.value.body).not.toContain('boop');
  });

  it('ingests plan text output with ANSI colours and CRLF', async () => {
    for (const file of corpusFiles('tfplan-text', '.txt')) {
      const res = await ingest(file, 'text-plans', new Uint8Array(corpusFile(file)));
      expect(res.status, file).toBe(201);
      const units = (await res.json()) as { name: string; body: string }[];
      expect(units.length, file).toBeGreaterThan(0);
      for (const u of units) expect(u.body).not.toMatch(/\u001b\[/);
    }
  });
});

describe('ingest errors', () => {
  it('answers 422 for an empty body', async () => {
    const res = await ingest('', 'empty', '');
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/empty/i);
  });

  it('answers 422 for input the analyzer cannot read', async () => {
    const res = await ingest('', 'garbage', 'this is not a terraform plan');
    expect(res.status).toBe(422);
    expect(await res.json()).toHaveProperty('detail');
  });

  it('answers 413 over 10 MB and stores nothing', async () => {
    const big = Buffer.alloc(10 * 1024 * 1024 + 1, 0x20);
    const res = await ingest('', 'too-big', new Uint8Array(big));
    expect(res.status).toBe(413);
    expect(await res.json()).toHaveProperty('detail');
    const namespaces = (await (await server.api('/namespaces')).json()) as { namespace: string }[];
    expect(namespaces.map((n) => n.namespace)).not.toContain('too-big');
  });

  it('answers 404 for an unknown analyzer and 422 for a bad namespace', async () => {
    expect((await server.api('/nope/ns/ingest', { method: 'POST', body: '{}' })).status).toBe(404);
    const plan = new Uint8Array(corpusFile('tfplan-json/terraform-showjson-basic-delete.json'));
    expect((await ingest('', 'bad%20name', plan)).status).toBe(422);
  });

  it('lists namespaces newest first and the resources of one', async () => {
    const namespaces = (await (await server.api('/namespaces')).json()) as { namespace: string; created_at: string }[];
    expect(namespaces.length).toBeGreaterThan(1);
    const times = namespaces.map((n) => n.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const resources = (await (await server.api('/corpus-a/resources')).json()) as { hash: string; analysis: unknown }[];
    expect(resources.length).toBeGreaterThan(0);
    expect(resources[0].analysis).toBeNull();
    expect((await server.api('/no-such-namespace/resources')).status).toBe(404);
  });
});
