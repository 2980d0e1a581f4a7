import { expect } from 'vitest';
import type { TestServer } from './test-server';

/**
 * The browser side of the two OIDC flows, over HTTP against the real server and a fake provider
 * (tests/fakes/oidc-provider.ts): start → provider → callback, following redirects by hand.
 */

/** Drives an org SSO sign-in (identity-api.md "Single sign-on"); `spoil` tampers with one step. */
export async function ssoSignIn(
  server: TestServer,
  orgId: string,
  spoil: { state?: string; cookie?: string | null; replay?: boolean; advance?: () => void } = {},
) {
  const start = await fetch(`${server.url}/api/v1/auth/sso/${orgId}/start`, { redirect: 'manual' });
  if (start.status !== 307)
    return { status: start.status, body: (await start.json()) as any, location: null, session: null, authorize: null, stateCookie: null };
  const stateCookie = start.headers.getSetCookie().find((c) => c.startsWith('sso_state='))!;
  const authorize = new URL(start.headers.get('location')!);
  const back = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
  if (spoil.state !== undefined) back.searchParams.set('state', spoil.state);
  spoil.advance?.();
  const cookie = spoil.cookie === undefined ? stateCookie.split(';')[0] : spoil.cookie;
  const call = () => fetch(back, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  if (spoil.replay) await call();
  const done = await call();
  const session =
    done.headers
      .getSetCookie()
      .find((c) => c.startsWith('mcp_session='))
      ?.split(';')[0] ?? null;
  const text = await done.text();
  return { status: done.status, body: text ? JSON.parse(text) : null, location: done.headers.get('location'), session, authorize, stateCookie };
}

/**
 * Follows a social sign-in (identity-api.md "Social sign-in") from `startPath` like a browser;
 * returns the callback's redirect and session cookie. The callback never has a body.
 */
export async function socialRoundTrip(server: TestServer, startPath: string, cookie?: string | null) {
  const start = await fetch(`${server.url}/api/v1${startPath}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  if (start.status !== 307) return { status: start.status, location: null, session: null, authorize: null };
  const state = start.headers.getSetCookie().find((c) => c.startsWith('oauth_state='))!;
  const authorize = new URL(start.headers.get('location')!);
  const back = (await fetch(authorize, { redirect: 'manual' })).headers.get('location')!;
  const done = await fetch(back, { redirect: 'manual', headers: { cookie: [state.split(';')[0], cookie].filter(Boolean).join('; ') } });
  expect(await done.text()).toBe('');
  const session =
    done.headers
      .getSetCookie()
      .find((c) => c.startsWith('mcp_session='))
      ?.split(';')[0] ?? null;
  return { status: done.status, location: done.headers.get('location'), session, authorize };
}
