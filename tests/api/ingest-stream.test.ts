/**
 * Issue 18: the ingest reply (analysis-api.md "Ingest": it echoes every unit) is streamed unit by
 * unit instead of being built as one string. The bytes must be exactly those of serialising the
 * reply in one go, and a client leaving mid-reply must not disturb the server.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BodyWriter } from '../../server/src/http/route';
import { writeJsonArray } from '../../server/src/routes/json-slices';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

/** A plan of `copies` × the large corpus plan's resource changes, each copy with its own addresses. */
function bigPlan(copies: number): string {
  const plan = JSON.parse(corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString('utf8')) as { resource_changes: { address: string }[] };
  const changes = plan.resource_changes;
  plan.resource_changes = Array.from({ length: copies }, (_, i) => changes.map((rc) => ({ ...rc, address: `${rc.address}_${i}` }))).flat();
  return JSON.stringify(plan);
}

describe('streamed ingest reply', () => {
  it('sends the same bytes as one JSON.stringify of the units, as chunked application/json', async () => {
    const res = await server.api('/terraform/stream-a/ingest', { method: 'POST', body: bigPlan(16), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('transfer-encoding')).toBe('chunked');
    const text = await res.text();
    expect(text.length).toBeGreaterThan(1024 * 1024); // many chunks
    const units = JSON.parse(text) as { hash: string }[];
    expect(text).toBe(JSON.stringify(units));
    const stored = (await (await server.api('/stream-a/resources')).json()) as unknown[];
    expect(stored).toHaveLength(units.length);
  });

  it('streams the auto-ingest reply {units, analyzers_used, detections} byte for byte', async () => {
    const res = await server.api('/stream-auto/ingest/auto', {
      method: 'POST',
      body: corpusFile('diff-mixed/tf-aws-eks-9fa75c0d-karpenter-tf-and-k8s-yaml.diff'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(201);
    const text = await res.text();
    const reply = JSON.parse(text) as { units: unknown[]; analyzers_used: string[]; detections: unknown[] };
    expect(Object.keys(reply)).toEqual(['units', 'analyzers_used', 'detections']);
    expect(reply.units.length).toBeGreaterThan(0);
    expect(text).toBe(JSON.stringify(reply));
  });

  it('keeps serving when a client hangs up in the middle of a large reply', async () => {
    const body = bigPlan(24);
    const url = new URL(`${server.url}/api/v1/terraform/stream-gone/ingest`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        // Read one chunk, then hang up while the server is still writing.
        res.once('data', () => {
          req.destroy();
          resolve(res.statusCode ?? 0);
        });
      });
      req.on('error', (error) => {
        if (!req.destroyed) reject(error);
      });
      req.end(body);
    });
    expect(status).toBe(201);
    const health = await fetch(`${server.url}/health`);
    expect(health.status).toBe(200);
    // The ingest itself was complete before the first byte of the reply.
    const again = await server.api('/terraform/stream-gone-2/ingest', { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(again.status).toBe(201);
    const units = (await again.json()) as unknown[];
    const stored = (await (await server.api('/stream-gone/resources')).json()) as unknown[];
    expect(stored).toHaveLength(units.length);
  });
});

describe('writeJsonArray', () => {
  function collector(): { out: BodyWriter; chunks: string[] } {
    const chunks: string[] = [];
    return {
      chunks,
      out: {
        write: async (chunk) => {
          chunks.push(chunk);
        },
      },
    };
  }

  it('writes exactly prefix + JSON.stringify(items) + suffix, in several chunks when large', async () => {
    const cases: unknown[][] = [
      [],
      [1],
      [undefined, null, 'é ✓ \u2028', { a: [1, { b: undefined }] }],
      Array.from({ length: 5000 }, (_, i) => ({ i, s: 'x'.repeat(100) })),
    ];
    for (const items of cases) {
      const { out, chunks } = collector();
      await writeJsonArray(items, out, '{"units":', ',"n":1}');
      expect(chunks.join('')).toBe(`{"units":${JSON.stringify(items)},"n":1}`);
      if (items.length === 5000) expect(chunks.length).toBeGreaterThan(1);
    }
  });

  it('stops at the first write the client refuses', async () => {
    let writes = 0;
    const out: BodyWriter = {
      write: async () => {
        writes += 1;
        throw new Error('client gone');
      },
    };
    const items = Array.from({ length: 5000 }, (_, i) => ({ i, s: 'x'.repeat(100) }));
    await expect(writeJsonArray(items, out)).rejects.toThrow('client gone');
    expect(writes).toBe(1);
  });
});
