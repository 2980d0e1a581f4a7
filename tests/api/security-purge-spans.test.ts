import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestServer } from '../helpers/test-server';
import { bootstrap, FakeClock, registerUser, startAuthServer } from '../helpers/identity';

/**
 * POST /admin/organizations/purge-pending used to delete the stored spans while up to 250 ms of
 * the org's spans still waited in the span write buffer; the next flush wrote them back, so spans
 * of a purged org survived. The purge now drops the org's buffered spans and waits for batches
 * in flight before deleting (engine/src/telemetry/span-store.ts `purgeOrg`).
 */
const DAY = 86_400_000;
const clock = new FakeClock();
let server: TestServer;

beforeAll(async () => {
  server = await startAuthServer({ clock });
});
afterAll(async () => {
  await server.close();
});

const storedSpans = async (orgId: string) => {
  await server.services.engine.stores.spans.flush();
  return server.services.engine.stores.store.collection('spans').count({ org_id: orgId });
};

/** A span as a request of `orgId` in flight records it: queued in the write buffer. */
function bufferSpan(orgId: string): void {
  server.services.engine.stores.spans.insert({
    span_id: randomUUID(),
    org_id: orgId,
    trace_id: randomUUID(),
    type: 'request',
    timestamp: clock.now().toISOString(),
    duration_ms: 3,
    key_id: null,
    user_id: null,
    data: { method: 'GET', path: '/x', status_code: 200 },
  });
}

describe('purging an org leaves none of its spans behind', () => {
  it("buffered spans of the purged org are not written after the purge; another org's are", async () => {
    const boot = bootstrap(server);
    const gone = await registerUser(server, 'spans-gone@example.com', { orgName: 'Spans Gone' });
    const kept = await registerUser(server, 'spans-kept@example.com', { orgName: 'Spans Kept' });
    for (const user of [gone, kept]) expect((await user.client.get(`/orgs/${user.orgId}/teams`)).status).toBe(200);
    expect(await storedSpans(gone.orgId as string)).toBeGreaterThan(0);
    expect((await boot.delete(`/admin/organizations/${gone.orgId}`)).status).toBe(200);
    clock.advance(31 * DAY);

    // Requests still in flight: their spans wait in the buffer when the purge runs.
    bufferSpan(gone.orgId as string);
    bufferSpan(kept.orgId as string);
    const keptBefore = (await server.services.engine.stores.store.collection('spans').count({ org_id: kept.orgId })) + 1;
    expect(server.services.engine.stores.spans.pending).toBeGreaterThan(0);

    const purge = await boot.post('/admin/organizations/purge-pending');
    expect(purge.status).toBe(200);
    expect(purge.body.purged.map((p: { org_id: string }) => p.org_id)).toEqual([gone.orgId]);
    expect(await storedSpans(gone.orgId as string)).toBe(0);
    expect(await storedSpans(kept.orgId as string)).toBeGreaterThanOrEqual(keptBefore);

    // A span recorded for the purged org afterwards (a request that began before the purge) is not kept either.
    bufferSpan(gone.orgId as string);
    expect(await storedSpans(gone.orgId as string)).toBe(0);
  });

  it('purge-pending is superadmin only', async () => {
    const user = await registerUser(server, 'spans-nobody@example.com', { orgName: 'Nobody' });
    expect((await user.client.post('/admin/organizations/purge-pending')).status).toBe(403);
  });
});
