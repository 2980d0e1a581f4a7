/**
 * Large replies built and sent in slices, with turns of the event loop between them (the SARIF
 * report, GET /{namespace}/resources, GET /findings/namespaces): the bytes a client gets are those
 * of the same data read and serialised in one go.
 */
import type * as Sarif from 'sarif';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentResource } from '../../engine/src/analysis/resource-service';
import { RISK_SCAN_LIMIT } from '../../engine/src/findings/finding-namespaces';
import { DEFAULT_ORG_ID } from '../../engine/src/orgs/org-store';
import { serializeSarif } from '../../engine/src/report/sarif';
import { writeJsonAround, writeJsonArrayPages, writeTextInChunks } from '../../server/src/routes/json-slices';
import { corpusFile, startTestServer, type TestServer } from '../helpers/test-server';

const NS = 'sliced-big';
const COPIES = 24; // × 26 resource changes: 624 units, many slices each way
const clock = new Date('2026-03-01T12:00:00.000Z');
let server: TestServer;

/** The large corpus plan's resource changes `copies` times, each copy with its own addresses. */
function bigPlan(copies: number): string {
  const plan = JSON.parse(corpusFile('tfplan-json/infracost-aws-modules-tf014-large.json').toString('utf8')) as { resource_changes: { address: string }[] };
  const changes = plan.resource_changes;
  plan.resource_changes = Array.from({ length: copies }, (_, i) => changes.map((rc) => ({ ...rc, address: `${rc.address}_${i}` }))).flat();
  return JSON.stringify(plan);
}

beforeAll(async () => {
  server = await startTestServer({ start: { now: () => clock } });
  const res = await server.api(`/terraform/${NS}/analyze`, { method: 'POST', json: { raw_input: bigPlan(COPIES) } });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await server.close();
});

describe('replies sent in slices', () => {
  it('GET /{namespace}/resources sends JSON.stringify of every resource read at once, in ingest order', async () => {
    const res = await server.api(`/${NS}/resources`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const text = await res.text();
    const stores = server.services.engine.stores.resources;
    const members = await stores.listMembers(DEFAULT_ORG_ID, NS);
    expect(members.length).toBe(COPIES * 26);
    const byHash = new Map(
      (
        await stores.getMany(
          DEFAULT_ORG_ID,
          members.map((m) => m.hash),
        )
      ).map((d) => [d.hash, d]),
    );
    expect(text).toBe(JSON.stringify(members.map((m) => presentResource(byHash.get(m.hash)!))));
    expect((await server.api('/no-such-namespace/resources')).status).toBe(404);
  });

  it('the SARIF report, raw and in JSON, is the bytes of the same log serialised in one go', async () => {
    const json = await server.api(`/${NS}/report?format=sarif`);
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const jsonText = await json.text();
    const log = (JSON.parse(jsonText) as { sarif_report: Sarif.Log }).sarif_report;
    expect(log.runs[0].results!.length).toBeGreaterThan(500);
    expect(jsonText).toBe(JSON.stringify({ sarif_report: log }));

    const raw = await server.api(`/${NS}/report?format=sarif&raw=true`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('application/sarif+json; charset=utf-8');
    expect(await raw.text()).toBe(serializeSarif(log));
  });

  it('the Markdown and HTML reports, raw and in JSON, carry the same document, sent in chunks', async () => {
    for (const [format, key, type] of [
      ['markdown', 'markdown_report', 'text/markdown; charset=utf-8'],
      ['html', 'html_report', 'text/html; charset=utf-8'],
    ] as const) {
      const json = await server.api(`/${NS}/report?format=${format}`);
      expect(json.status).toBe(200);
      expect(json.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const jsonText = await json.text();
      const document = (JSON.parse(jsonText) as Record<string, string>)[key];
      expect(document.length).toBeGreaterThan(256 * 1024);
      expect(jsonText).toBe(JSON.stringify({ [key]: document }));

      const raw = await server.api(`/${NS}/report?format=${format}&raw=true`);
      expect(raw.status).toBe(200);
      expect(raw.headers.get('content-type')).toBe(type);
      expect(await raw.text()).toBe(document);
    }
  });

  it('GET /findings/namespaces counts every open CRITICAL and HIGH record of the namespace, read in batches', async () => {
    const res = await server.api('/findings/namespaces');
    expect(res.status).toBe(200);
    const { findings, resources } = server.services.engine.stores;
    const members = new Set((await resources.listMembers(DEFAULT_ORG_ID, NS)).map((m) => m.hash));
    const count = async (severity: 'CRITICAL' | 'HIGH') =>
      (await findings.list(DEFAULT_ORG_ID, { status: 'open', severity }, { limit: RISK_SCAN_LIMIT, offset: 0 })).filter((f) => members.has(f.resource_hash))
        .length;
    const expected = { namespaces: [{ namespace: NS, open_critical: await count('CRITICAL'), open_high: await count('HIGH') }], partial: false };
    expect(expected.namespaces[0].open_high).toBeGreaterThan(100);
    expect(await res.json()).toEqual(expected);
  });
});

describe('writeJsonAround', () => {
  const collect = async (value: unknown, items: readonly unknown[], space: string, suffix = '') => {
    const chunks: string[] = [];
    await writeJsonAround(value, 'MARK', items, { write: async (c) => void chunks.push(c) }, space, suffix);
    return { text: chunks.join(''), chunks: chunks.length };
  };
  const items = Array.from({ length: 4000 }, (_, i) => ({ i, s: `line\n${'x'.repeat(i % 300)}`, nested: { list: [i, { deep: [] }], empty: {} } }));

  it('writes the bytes of JSON.stringify, compact and pretty-printed, with the array at any depth', async () => {
    for (const list of [[], [1], [undefined, null, 'é ✓ \u2028', { a: [1, { b: undefined }] }], items]) {
      const whole = { a: 1, runs: [{ x: 'y', results: list, after: [1, 2] }], z: null };
      const marked = { a: 1, runs: [{ x: 'y', results: 'MARK', after: [1, 2] }], z: null };
      for (const space of ['', '  ', '\t']) {
        expect((await collect(marked, list, space, '\n')).text).toBe(`${JSON.stringify(whole, null, space)}\n`);
      }
      expect((await collect('MARK', list, '  ')).text).toBe(JSON.stringify(list, null, '  '));
    }
    expect((await collect({ results: 'MARK' }, items, '  ')).chunks).toBeGreaterThan(1);
  });

  it('refuses a value without the marker', async () => {
    await expect(collect({ results: [] }, items, '')).rejects.toThrow(/marker/);
  });
});

describe('writeJsonArrayPages', () => {
  it('writes the bytes of JSON.stringify of the pages concatenated, empty pages anywhere', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => ({ i, s: 'y'.repeat(i % 500) }));
    const cases: unknown[][][] = [[], [[]], [[], []], [[1], [], [2, 3]], [[], [null, 'a'], []], [big.slice(0, 1000), [], big.slice(1000)]];
    for (const pages of cases) {
      const chunks: string[] = [];
      async function* read() {
        for (const page of pages) yield page;
      }
      await writeJsonArrayPages(read(), { write: async (c) => void chunks.push(c) }, 'P', 'S');
      expect(chunks.join('')).toBe(`P${JSON.stringify(pages.flat())}S`);
    }
  });
});

describe('writeTextInChunks', () => {
  const collect = async (text: string, options: Parameters<typeof writeTextInChunks>[2]) => {
    const chunks: string[] = [];
    await writeTextInChunks(text, { write: async (c) => void chunks.push(c) }, options);
    return { text: chunks.join(''), chunks };
  };

  it('writes the text, or its JSON string, byte for byte, never splitting a surrogate pair', async () => {
    // An emoji straddling the chunk boundary, quotes, backslashes, control characters and line breaks.
    const text = `${'a'.repeat(256 * 1024 - 1)}\u{1F512}"\\\u0001\n<script>${'é'.repeat(300_000)}`;
    for (const body of [text, '', '\u{1F512}']) {
      expect((await collect(body, {})).text).toBe(body);
      expect((await collect(body, { json: true, prefix: '{"k":', suffix: '}' })).text).toBe(JSON.stringify({ k: body }));
    }
    const { chunks } = await collect(text, { json: true });
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(Buffer.from(chunk, 'utf8').toString('utf8')).toBe(chunk); // no lone surrogate in any chunk
  });
});
