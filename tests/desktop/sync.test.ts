import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootLocalEngine, type LocalEngine } from '../../apps/desktop/src/core/boot';
import { InputJournal } from '../../apps/desktop/src/core/input-journal';
import { localApi, teamApi, type ApiClient } from '../../apps/desktop/src/core/sync/api-client';
import { SyncService } from '../../apps/desktop/src/core/sync/sync-service';
import { SyncState } from '../../apps/desktop/src/core/sync/sync-state';
import { corpusFile } from '../corpus';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { spawnServer, type ServerProcess } from '../helpers/server-process';
import { unusedPort } from './ports';

const BOOTSTRAP = 'bootstrap-key-for-desktop-sync-tests';
const PLAN = corpusFile('tfplan-json/terraform-showjson-basic-delete.json').toString('utf8');
const OTHER_PLAN = corpusFile('tfplan-json/checkov-aws-replace-create-delete.json').toString('utf8');

let fake: FakeProvider;
let teamDir: string;
let userDir: string;
let port: number;
let team: ServerProcess;
let serviceKey: string;
let engine: LocalEngine;
let local: ApiClient;
let teamClient: ApiClient;
let sync: SyncService;
/** The local engine's clock: tests move it to make the desktop decision earlier or later than the team's. */
let localClockOffsetMs = 0;

const startTeam = () =>
  spawnServer({
    dataDir: teamDir,
    fake,
    env: { PLANWARDEN_PORT: String(port), PLANWARDEN_AUTH_ENABLED: 'true', PLANWARDEN_AUTH_API_KEY: BOOTSTRAP },
  });
const llmCalls = () => fake.requests.filter((r) => r.backend !== 'unknown').length;
const asJson = async (res: Response) => (await res.json()) as any;
const teamFindings = async () => (await asJson(await team.api('/findings?limit=1000', { headers: { 'x-api-key': serviceKey } }))).findings as any[];

/** Analyses `raw` locally with the fake Ollama in `namespace` (server-side analysis, inline). */
async function analyseLocally(namespace: string, raw: string) {
  const res = await local.call('POST', `/${namespace}/analyze/auto`, { json: { llm_backend: 'ollama', model: 'llama3.1:8b', api_key: null, raw_input: raw } });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  fake = await startFakeProvider();
  teamDir = mkdtempSync(join(tmpdir(), 'pw-team-'));
  userDir = mkdtempSync(join(tmpdir(), 'pw-laptop-'));
  port = await unusedPort();
  team = await startTeam();
  const key = await team.api('/auth/keys', { method: 'POST', headers: { 'x-api-key': BOOTSTRAP }, json: { role: 'admin', name: 'desktop-sync' } });
  expect(key.status).toBe(201);
  serviceKey = (await asJson(key)).key;

  const journal = new InputJournal(join(userDir, 'sync', 'inputs'));
  engine = await bootLocalEngine({
    userDataDir: userDir,
    ollamaHost: fake.ollamaHost,
    sleep: async () => {},
    pollIntervalMs: 50,
    now: () => new Date(Date.now() + localClockOffsetMs),
    onExchange: journal.observe,
  });
  local = localApi(engine.bridge);
  teamClient = teamApi(team.url, serviceKey);
  sync = new SyncService({ local, team: () => ({ url: team.url, api: teamClient }), journal, state: new SyncState(join(userDir, 'sync', 'state.json')) });
}, 120_000);

afterAll(async () => {
  await engine?.close();
  await team?.stop();
  await fake?.close();
  for (const d of [teamDir, userDir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe('sync to a team org (a real team server, auth on, a service key)', () => {
  it('pushes a namespace: input ingested, analyses submitted; a second push adds 0 findings and makes 0 LLM calls', async () => {
    await analyseLocally('laptop-plan', PLAN);
    const localFindings = (await local.call('GET', '/findings?namespace=laptop-plan')).body.findings as any[];
    expect(localFindings.length).toBeGreaterThan(1);

    const first = await sync.push(['laptop-plan']);
    expect(first.status).toBe('done');
    if (first.status !== 'done') return;
    expect(first.namespaces[0]).toMatchObject({ inputs: 1, analyses_skipped: 0 });
    expect(first.namespaces[0].analyses_submitted).toBeGreaterThan(0);
    const afterFirst = await teamFindings();
    expect(afterFirst.map((f) => `${f.resource_hash} ${f.rule_id}`).sort()).toEqual(localFindings.map((f) => `${f.resource_hash} ${f.rule_id}`).sort());

    const callsBefore = llmCalls();
    const second = await sync.push(['laptop-plan']);
    expect(second.status === 'done' && second.namespaces[0]).toMatchObject({ analyses_submitted: 0, analyses_skipped: first.namespaces[0].analyses_submitted });
    const afterSecond = await teamFindings();
    expect(afterSecond).toHaveLength(afterFirst.length);
    expect(afterSecond.map((f) => f.occurrence_count)).toEqual(afterFirst.map((f) => f.occurrence_count));
    expect(llmCalls()).toBe(callsBefore);
    expect(sync.log()[0]).toMatchObject({ direction: 'push', namespace: 'laptop-plan', what: 'triage' });
  }, 120_000);

  it('resolves a triage decision made on both sides by the later one, keeping the loser in the feedback history', async () => {
    const [a, b] = (await local.call('GET', '/findings?namespace=laptop-plan')).body.findings as any[];
    const path = (f: any) => `/findings/${f.resource_hash}/${encodeURIComponent(f.rule_id)}`;
    const teamPatch = (f: any, status: string) => team.api(path(f), { method: 'PATCH', headers: { 'x-api-key': serviceKey }, json: { status } });

    // Pair a: the team decides now, the desktop one hour later → the desktop's decision wins.
    expect((await teamPatch(a, 'false_positive')).status).toBe(200);
    localClockOffsetMs = 3_600_000;
    expect((await local.call('PATCH', path(a), { json: { status: 'acknowledged', note: 'accepted on the laptop' } })).status).toBe(200);
    // Pair b: the desktop decides one hour ago, the team now → the team's decision wins.
    localClockOffsetMs = -3_600_000;
    expect((await local.call('PATCH', path(b), { json: { status: 'suppressed' } })).status).toBe(200);
    expect((await teamPatch(b, 'acknowledged')).status).toBe(200);
    localClockOffsetMs = 0;

    const pushed = await sync.push(['laptop-plan']);
    expect(pushed.status === 'done' && pushed.namespaces[0].triage).toMatchObject({ patched: 1, conflicts: 1 });
    const pulled = await sync.pull();
    expect(pulled.triage).toMatchObject({ patched: 1, conflicts: 1, kept_in_history: 1 });

    const onTeam = new Map((await teamFindings()).map((f) => [f.resource_hash + f.rule_id, f.status]));
    const onLaptop = new Map(((await local.call('GET', '/findings')).body.findings as any[]).map((f) => [f.resource_hash + f.rule_id, f.status]));
    expect([onTeam.get(a.resource_hash + a.rule_id), onLaptop.get(a.resource_hash + a.rule_id)]).toEqual(['acknowledged', 'acknowledged']);
    expect([onTeam.get(b.resource_hash + b.rule_id), onLaptop.get(b.resource_hash + b.rule_id)]).toEqual(['acknowledged', 'acknowledged']);

    const history = async (f: any) =>
      (
        await asJson(
          await team.api(`/feedback?resource_hash=${f.resource_hash}&rule_id=${encodeURIComponent(f.rule_id)}`, { headers: { 'x-api-key': serviceKey } }),
        )
      ).feedback as any[];
    // a: the team's superseded false_positive is still there (its own PATCH recorded it), beside the winner.
    expect((await history(a)).map((e) => e.verdict).sort()).toEqual(['confirmed', 'rejected']);
    // b: the desktop's superseded 'suppressed' was carried to the team's history.
    expect((await history(b)).some((e) => /Superseded desktop decision: status 'suppressed'/.test(e.comment))).toBe(true);

    // Nothing changed since: a second round moves nothing.
    const again = await sync.push(['laptop-plan']);
    expect(again.status === 'done' && again.namespaces[0].triage.patched).toBe(0);
    expect((await sync.pull()).triage.patched).toBe(0);
  }, 120_000);

  it("pulls the team's custom rules into local analysis", async () => {
    const headers = { 'x-api-key': serviceKey };
    const me = await asJson(await team.api('/auth/me', { headers }));
    expect((await team.api(`/orgs/${me.org_id}/rule-categories`, { method: 'POST', headers, json: { name: 'Team policy' } })).status).toBe(201);
    const rule = await team.api(`/orgs/${me.org_id}/rules`, {
      method: 'POST',
      headers,
      json: {
        title: 'No public buckets',
        description: 'Flag any bucket readable by everyone.',
        category: 'team-policy',
        severity: 'HIGH',
        analyzers: ['terraform'],
      },
    });
    expect(rule.status).toBe(201);
    const pulled = await sync.pull();
    expect(pulled).toMatchObject({ categories_created: 1, rules_created: 1 });
    const ruleset = await local.call('GET', '/terraform/rules');
    expect(String(ruleset.body)).toContain('No public buckets');
    expect((await sync.pull()).rules_created).toBe(0);
  }, 120_000);

  it('queues a push while the team server is down and runs it once the server answers', async () => {
    await analyseLocally('offline-plan', OTHER_PLAN);
    await team.stop();
    const queued = await sync.push(['offline-plan']);
    expect(queued.status).toBe('queued');
    expect(sync.queued()).toEqual([['offline-plan']]);
    expect(sync.log()[0]).toMatchObject({ direction: 'queue', outcome: 'queued' });
    expect(await sync.flush()).toBe(0); // still down: stays queued

    team = await startTeam();
    expect(await sync.flush()).toBe(1);
    expect(sync.queued()).toEqual([]);
    const resources = await asJson(await team.api('/offline-plan/resources', { headers: { 'x-api-key': serviceKey } }));
    expect(resources.length).toBeGreaterThan(0);
    expect(resources.every((r: any) => r.analysis !== null)).toBe(true);
  }, 180_000);
});
