import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pullRequestPayload, signWebhook, startFakeGitHub, type FakeGitHub } from '../fakes/github';
import { startFakeProvider, type FakeProvider } from '../fakes/llm-provider-server';
import { installLink, installThroughLink, registerSetupUrl, setupUrlOf, visitSetup } from '../helpers/codehost-install';
import { bootstrap, FakeClock, memberOf, registerUser, startAuthServer, type Client } from '../helpers/identity';
import { corpusFile, type TestServer } from '../helpers/test-server';

/**
 * docs/decisions.md "Installation binding" and "Delivery dedupe": an installation is bound to
 * one org, only through proof (the App's setup redirect with the org's install state, checked
 * with GitHub; or a superadmin), and a replayed pull-request event starts nothing new.
 */

const APP_ID = 5150;
const SECRET = 'platform-webhook-secret-binding';
const LLM = { llm_backend: 'ollama', model: 'llama3.1:8b' };
const clock = new FakeClock();

let server: TestServer;
let gh: FakeGitHub;
let fake: FakeProvider;
type Org = { client: Client; orgId: string; auth: Record<string, string> };
let alpha: Org;
let bravo: Org;
let deliveries = 0;
/** A's installation, bound through the setup redirect in the first test. */
let alphaInstallation: string;

async function org(email: string, name: string): Promise<Org> {
  const user = await registerUser(server, email, { orgName: name });
  return { client: user.client, orgId: user.orgId as string, auth: { cookie: user.client.cookie as string } };
}

const config = (o: Org) => o.client.get(`/orgs/${o.orgId}/integrations/codehost`);
const boundTo = async (installationId: string) => (await server.services.engine.stores.codehost.unsafeBindingOf(installationId))?.org_id ?? null;
const jobTotal = async (o: Org) => (await o.client.get('/jobs')).body.total as number;

/** The state of a fresh install link of `o` (as GitHub would echo it). */
async function stateOf(o: Org): Promise<string> {
  const res = await installLink(server, o.orgId, o.auth);
  expect(res.status).toBe(200);
  return new URL(((await res.json()) as { install_url: string }).install_url).searchParams.get('state') as string;
}

const setupWith = (installationId: string, state: string, auth: Record<string, string>) =>
  visitSetup(`${setupUrlOf(server)}?installation_id=${installationId}&setup_action=install&state=${encodeURIComponent(state)}`, auth);

function deliver(payload: unknown, deliveryId = `binding-${++deliveries}`) {
  const body = JSON.stringify(payload);
  return server.api('/integrations/codehost/webhook', {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'X-GitHub-Event': 'pull_request',
      'X-GitHub-Delivery': deliveryId,
      'X-Hub-Signature-256': signWebhook(SECRET, body),
    },
  });
}

beforeAll(async () => {
  fake = await startFakeProvider();
  gh = await startFakeGitHub({ now: clock.now });
  const privateKey = gh.addApp(APP_ID, 'planwarden-platform');
  gh.setDiff('alpha', 'infra', 3, corpusFile('diff-tf/tf-aws-vpc-b3e7803-public-default-routes.diff').toString('utf8'));
  server = await startAuthServer({
    clock,
    overrides: {
      server: { host: '127.0.0.1', port: 0, public_base_url: 'https://pw.example', dashboard_base_url: 'https://dash.example' },
      codehost: { app_id: String(APP_ID), private_key: privateKey, webhook_secret: SECRET, api_base_url: gh.url },
      llm: { openai_base_url: fake.openaiBaseUrl, anthropic_base_url: fake.anthropicBaseUrl, ollama_host: fake.ollamaHost },
    },
  });
  registerSetupUrl(gh, server, APP_ID);
  alpha = await org('alpha-owner@example.com', 'Alpha');
  bravo = await org('bravo-owner@example.com', 'Bravo');
}, 60_000);
afterAll(async () => {
  await server?.close();
  await gh?.close();
  await fake?.close();
});

describe('an installation binds to one org, through proof', () => {
  it('org A installs through the link: the setup redirect binds the new installation to A', async () => {
    const { setup, installationId } = await installThroughLink(server, alpha.orgId, alpha.auth);
    expect(setup.status).toBe(307);
    expect(setup.headers.get('location')).toBe(`https://dash.example/integrations/codehost?installed=${installationId}`);
    alphaInstallation = installationId;
    expect((await alpha.client.post(`/orgs/${alpha.orgId}/integrations/codehost`, LLM)).status).toBe(201);
    expect((await config(alpha)).body).toMatchObject({ installation_id: installationId, ...LLM });
    const audit = await alpha.client.get('/metrics/audit?action=codehost.installation_bind');
    expect(audit.body.events[0]).toMatchObject({ target_id: installationId, after: { installation_id: installationId, proof: 'setup_url' } });
  });

  it("org B cannot claim A's installation by its id (403), and A's pull requests keep going to A", async () => {
    const claim = await bravo.client.post(`/orgs/${bravo.orgId}/integrations/codehost`, { installation_id: alphaInstallation, ...LLM });
    expect(claim.status).toBe(403);
    expect(claim.body.detail).toMatch(/install link/);
    // Nor an unbound one, nor with its owner key.
    const key = (await bravo.client.post('/auth/keys', { role: 'owner', name: 'bravo-owner' })).body.key as string;
    const byKey = await server.api(`/orgs/${bravo.orgId}/integrations/codehost`, {
      method: 'POST',
      headers: { 'X-API-Key': key },
      json: { installation_id: '123456', ...LLM },
    });
    expect(byKey.status).toBe(403);
    expect(await boundTo(alphaInstallation)).toBe(alpha.orgId);
    expect(await boundTo('123456')).toBeNull();

    const res = await deliver(
      pullRequestPayload({ action: 'opened', owner: 'alpha', repo: 'infra', pr: 3, sha: 'd'.repeat(40), installationId: Number(alphaInstallation) }),
    );
    expect(res.status).toBe(202);
    await server.services.runner.idle();
    expect(await jobTotal(alpha)).toBe(1);
    expect(await jobTotal(bravo)).toBe(0);
  });

  it('org B cannot take it through its own setup redirect either: 409 while A holds it', async () => {
    const res = await setupWith(alphaInstallation, await stateOf(bravo), bravo.auth);
    expect(res.status).toBe(409);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/another organization/);
    expect(await boundTo(alphaInstallation)).toBe(alpha.orgId);
  });

  it('a spoofed installation_id binds nothing: older than the state, of another app, unknown or missing → 400', async () => {
    gh.addInstallation(700_001, APP_ID, new Date(clock.current.getTime() - 3_600_000));
    gh.addApp(6160, 'someone-else');
    gh.addInstallation(700_002, 6160);
    const state = await stateOf(bravo);
    const cases: [string, RegExp][] = [
      ['700001', /predates the install link/],
      ['700002', /not an installation of this organization's GitHub App/],
      ['999999', /not an installation/],
    ];
    for (const [id, why] of cases) {
      const res = await setupWith(id, state, bravo.auth);
      expect(res.status, id).toBe(400);
      expect(((await res.json()) as { detail: string }).detail).toMatch(why);
      expect(await boundTo(id)).toBeNull();
    }
    const missing = await visitSetup(`${setupUrlOf(server)}?setup_action=install&state=${encodeURIComponent(state)}`, bravo.auth);
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { detail: string }).detail).toMatch(/installation_id is missing/);
    // The person's browser (HTML first in Accept) is sent back to the integration page, which says why.
    const browser = await setupWith('700002', state, { ...bravo.auth, accept: 'text/html,application/xhtml+xml,*/*;q=0.8' });
    expect(browser.status).toBe(303);
    const back = new URL(browser.headers.get('location')!, server.url);
    expect(back.pathname).toBe('/integrations/codehost');
    expect(back.searchParams.get('setup_error')).toMatch(/not an installation of this organization's GitHub App/);
    expect(await boundTo('700002')).toBeNull();
    expect((await config(bravo)).status).toBe(404);
  });

  it('a forged, tampered, expired, other-org or other-user state → 400 and nothing bound; no session → 401', async () => {
    const alphaState = await stateOf(alpha);
    const fresh = '700010';
    gh.addInstallation(Number(fresh), APP_ID);
    const [head, body, sig] = alphaState.split('.');
    const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { dat: Record<string, unknown> };
    const tampered = `${head}.${Buffer.from(JSON.stringify({ ...claims, dat: { ...claims.dat, org: bravo.orgId } })).toString('base64url')}.${sig}`;
    const otherKey = await new SignJWT({ typ: 'codehost_install', dat: { ...claims.dat, org: bravo.orgId } })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('codehost_install')
      .setJti('forged')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('not-the-server-secret-at-all-000'));
    const alphaAdmin = await memberOf(server, alpha.client, alpha.orgId, 'alpha-admin@example.com', 'admin');
    const attempts: [string, string, Record<string, string>][] = [
      ['garbage', 'not-a-state', bravo.auth],
      ['tampered', tampered, bravo.auth],
      ['signed with another key', otherKey, bravo.auth],
      ["A's state at B", alphaState, bravo.auth],
      ["A's owner state at another admin of A", alphaState, { cookie: alphaAdmin.client.cookie as string }],
    ];
    for (const [what, state, auth] of attempts) {
      const res = await setupWith(fresh, state, auth);
      expect(res.status, what).toBe(400);
      expect(((await res.json()) as { detail: string }).detail, what).toMatch(/install state/);
    }
    expect((await setupWith(fresh, alphaState, {})).status).toBe(401);
    clock.advance(11 * 60_000);
    const expired = await setupWith(fresh, alphaState, alpha.auth);
    expect(expired.status).toBe(400);
    expect(((await expired.json()) as { detail: string }).detail).toMatch(/missing, expired or invalid/);
    expect(await boundTo(fresh)).toBeNull();
    expect((await config(alpha)).body.installation_id).toBe(alphaInstallation);
  });

  it("a superadmin binds without the redirect (audited); another org's installation stays 409; others get 403", async () => {
    const boot = bootstrap(server);
    const path = `/admin/organizations/${bravo.orgId}/integrations/codehost/installation`;
    expect((await alpha.client.post(path, { installation_id: '700020' })).status).toBe(403);
    expect((await boot.post(path, { installation_id: 'abc' })).status).toBe(422);
    expect((await boot.post('/admin/organizations/org_missing/integrations/codehost/installation', { installation_id: '700020' })).status).toBe(404);
    const bound = await boot.post(path, { installation_id: '700020' });
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ org_id: bravo.orgId, installation_id: '700020', proof: 'superadmin' });
    expect((await config(bravo)).body.installation_id).toBe('700020');
    expect((await boot.post(path, { installation_id: alphaInstallation })).status).toBe(409);
    expect(await boundTo(alphaInstallation)).toBe(alpha.orgId);
    const audit = await boot.get(`/admin/organizations/${bravo.orgId}/audit?action=codehost.installation_bind`);
    expect(audit.body.events[0]).toMatchObject({
      actor_is_superadmin: true,
      target_type: 'codehost_installation',
      after: { installation_id: '700020', proof: 'superadmin' },
    });
  });

  it('two orgs racing for one installation: exactly one binds it', async () => {
    const charlie = await org('charlie-owner@example.com', 'Charlie');
    const delta = await org('delta-owner@example.com', 'Delta');
    const [charlieState, deltaState] = [await stateOf(charlie), await stateOf(delta)];
    gh.addInstallation(700_030, APP_ID);
    const raced = await Promise.all([setupWith('700030', charlieState, charlie.auth), setupWith('700030', deltaState, delta.auth)]);
    expect(raced.map((r) => r.status).sort()).toEqual([307, 409]);
    const winner = raced[0].status === 307 ? charlie : delta;
    const loser = winner === charlie ? delta : charlie;
    expect(await boundTo('700030')).toBe(winner.orgId);
    expect((await config(loser)).status).toBe(404);
    // The superadmin path races the same way.
    const boot = bootstrap(server);
    const both = await Promise.all(
      [charlie, delta].map((o) => boot.post(`/admin/organizations/${o.orgId}/integrations/codehost/installation`, { installation_id: '700031' })),
    );
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});

describe('a replayed pull-request event starts nothing new', () => {
  const INSTALLATION = 700_040;
  const boot = () => bootstrap(server);
  const pull = (sha: string) => pullRequestPayload({ action: 'synchronize', owner: 'alpha', repo: 'infra', pr: 3, sha, installationId: INSTALLATION });
  const total = async () => (await boot().get('/jobs')).body.total as number;

  it('a superadmin names the installation on the config POST of its own org (audited)', async () => {
    gh.addInstallation(INSTALLATION, APP_ID);
    const res = await boot().post('/orgs/default/integrations/codehost', { installation_id: String(INSTALLATION), ...LLM });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ installation_id: String(INSTALLATION) });
    const audit = await boot().get('/metrics/audit?action=codehost.installation_bind');
    expect(audit.body.events[0]).toMatchObject({ actor_is_superadmin: true, after: { installation_id: String(INSTALLATION), proof: 'superadmin' } });
  });

  it('the same signed bytes under a new delivery id answer the first job, even racing', async () => {
    const before = await total();
    const payload = pull('e'.repeat(40));
    const first = await deliver(payload, 'replay-original');
    expect(first.status).toBe(202);
    const { job_id } = (await first.json()) as { job_id: string };
    const replay = await deliver(payload, 'replay-new-id');
    expect(replay.status).toBe(202);
    expect(((await replay.json()) as { job_id: string }).job_id).toBe(job_id);
    await server.services.runner.idle();
    expect(await total()).toBe(before + 1);

    const racing = pull('f'.repeat(40));
    const raced = await Promise.all([deliver(racing, 'race-1'), deliver(racing, 'race-2')]);
    expect(raced.map((r) => r.status)).toContain(202);
    const answers = await Promise.all(raced.map((r) => r.json() as Promise<{ job_id?: string; detail?: string }>));
    const started = answers.find((a) => a.job_id)!.job_id;
    // The loser answers as a redelivery: the same job, or "already received" while it starts.
    for (const a of answers) expect(a.job_id === started || a.detail === 'Ignored: delivery already received').toBe(true);
    await server.services.runner.idle();
    expect(await total()).toBe(before + 2);
    // A new head commit is new work.
    expect((await deliver(pull('1'.repeat(40)))).status).toBe(202);
    await server.services.runner.idle();
    expect(await total()).toBe(before + 3);
  });
});
