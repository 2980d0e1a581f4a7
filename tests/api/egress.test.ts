import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FindingDoc } from '../../engine/src/findings/finding-store';
import { EgressRefusedError, egressFetch, type EgressPolicy } from '../../engine/src/net/egress';
import { fireNeedsReview } from '../../engine/src/notify/review-webhook';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver';
import { startTestServer, type TestServer } from '../helpers/test-server';

/**
 * The egress policy (engine/src/net/egress.ts) on the review webhook, the first tenant-set URL:
 * every attack form is refused at save (422 naming the rule and the setting) and again at
 * delivery, before any connection. Nothing here connects to anything but 127.0.0.1.
 */
let server: TestServer;
let receiver: WebhookReceiver;
const PATH = '/orgs/default/integrations/review-webhook';

beforeAll(async () => {
  server = await startTestServer(); // no egress.allowlist: the default, strict policy
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await server.close();
  await receiver.close();
});

const finding: FindingDoc = {
  org_id: 'default',
  resource_hash: 'f'.repeat(64),
  rule_id: 'TF-GEN-PUBLIC-INGRESS',
  resource_address: 'aws_security_group.web',
  severity: 'HIGH',
  title: 't',
  confidence: 'LOW',
  status: 'needs_review',
  first_seen: '2025-01-01T00:00:00.000Z',
  last_seen: '2025-01-01T00:00:00.000Z',
  occurrence_count: 1,
  note: null,
  updated_by: null,
  updated_at: null,
};

describe('review webhook URL at save', () => {
  const port = () => new URL(receiver.url).port;
  const refused: [string, () => string, RegExp][] = [
    ['hex IPv4', () => `http://0x7f000001:${port()}/hook`, /127\.0\.0\.1 is a loopback address/],
    ['decimal IPv4', () => 'http://2130706433/', /127\.0\.0\.1 is a loopback address/],
    ['octal IPv4', () => 'http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['short IPv4', () => 'http://127.1/', /loopback/],
    ['loopback', () => receiver.url, /loopback/],
    ['private 10/8', () => 'http://10.0.0.1/', /10\.0\.0\.1 is a private \(RFC 1918\) address/],
    ['private 172.16/12', () => 'http://172.16.5.4/', /private/],
    ['private 192.168/16', () => 'https://192.168.1.1/', /private/],
    ['CGNAT', () => 'http://100.64.0.1/', /carrier-grade NAT/],
    ['metadata', () => 'http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local \(cloud metadata\) address/],
    ['unspecified IPv4', () => 'http://0.0.0.0/', /unspecified/],
    ['IPv6 loopback', () => 'http://[::1]/', /loopback/],
    ['IPv6 unspecified', () => 'http://[::]/', /unspecified/],
    ['IPv6 unique-local', () => 'http://[fd00::1]/', /fd00::1 is an IPv6 unique-local address/],
    ['IPv6 link-local', () => 'http://[fe80::1]/', /link-local/],
    ['IPv4-mapped loopback', () => 'http://[::ffff:127.0.0.1]/', /loopback/],
    ['IPv4-mapped metadata', () => 'http://[::ffff:a9fe:a9fe]/', /link-local/],
    ['IPv4-compatible loopback', () => 'http://[::127.0.0.1]/', /IPv4-compatible/],
    ['localhost', () => `http://localhost:${port()}/hook`, /host name localhost/],
    ['*.localhost', () => 'http://api.localhost/', /host name api\.localhost/],
    ['GCP metadata name', () => 'http://metadata.google.internal/computeMetadata/v1/', /metadata/],
    ['credentials', () => 'https://user:pw@hooks.example.com/', /credentials/],
    ['scheme', () => 'file:///etc/passwd', /only http and https/],
  ];

  it.each(refused)('refuses %s with 422 naming the rule and the setting', async (_name, url, reason) => {
    const res = await server.api(PATH, { method: 'PUT', json: { url: url() } });
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: string };
    expect(detail).toMatch(reason);
    if (!/credentials|scheme|only http/.test(reason.source)) expect(detail).toContain('egress.allowlist');
  });

  it('accepts a public host name (resolved and checked at delivery, not at save)', async () => {
    expect((await server.api(PATH, { method: 'PUT', json: { url: 'https://hooks.example.com/planwarden' } })).status).toBe(200);
  });
});

describe('review webhook delivery', () => {
  it('a stored loopback URL (saved before the policy, or by name) is refused before any connection', async () => {
    const { engine } = server.services;
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost'), receiver.url.replace('127.0.0.1', '[::ffff:127.0.0.1]')]) {
      await engine.stores.reviewWebhooks.put('default', { url, enabled: true, secret_sealed: null }, new Date().toISOString());
      await fireNeedsReview(engine, 'default', finding, 'manual');
    }
    expect(receiver.received).toEqual([]);
  });
});

describe('egressFetch', () => {
  it('checks the address a host name resolves to and refuses it before connecting', async () => {
    const rebinding: EgressPolicy = { allowlist: [], resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    const port = new URL(receiver.url).port;
    await expect(egressFetch(`http://hooks.rebind.test:${port}/hook`, { method: 'POST', body: '{}' }, rebinding)).rejects.toThrow(
      /hooks\.rebind\.test resolves to 127\.0\.0\.1, a loopback address/,
    );
    // One refused address among several refuses the host: the connection could land on it.
    const mixed: EgressPolicy = {
      allowlist: [],
      resolve: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.1.2.3', family: 4 },
      ],
    };
    await expect(egressFetch(`http://hooks.mixed.test:${port}/hook`, {}, mixed)).rejects.toBeInstanceOf(EgressRefusedError);
    expect(receiver.received).toEqual([]);
  });

  it('connects to the checked address itself: an allowlisted resolution reaches the receiver', async () => {
    // `hooks.pinned.test` exists in no DNS: the socket can only reach the receiver through the checked lookup.
    const pinned: EgressPolicy = { allowlist: ['127.0.0.0/8'], resolve: async () => [{ address: '127.0.0.1', family: 4 }] };
    const port = new URL(receiver.url).port;
    const response = await egressFetch(`http://hooks.pinned.test:${port}/hook`, { method: 'POST', body: '{"x":1}' }, pinned);
    expect(response.status).toBe(204);
    const hook = await receiver.next();
    expect(hook.raw).toBe('{"x":1}');
    expect(hook.headers.host).toBe(`hooks.pinned.test:${port}`);
  });

  it('never follows a redirect', async () => {
    const seen: string[] = [];
    const redirector: Server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(307, { location: '/landing' }).end();
    });
    await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/hook`;
      const response = await egressFetch(url, { method: 'POST', body: '{}' }, { allowlist: ['127.0.0.1'] });
      expect(response.status).toBe(307);
      expect(response.headers.location).toBe('/landing');
      expect(seen).toEqual(['/hook']);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((r) => redirector.close(() => r()));
    }
  });
});
