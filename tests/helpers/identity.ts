import { REPLICA_STORES, type ReplicaStore } from './replica-backends';
import { startTestServer, type TestServer } from './test-server';
import type { Logger } from '../../engine/src/core/logger';
import type { StartOptions } from '../../server/src/server';

export const BOOTSTRAP_KEY = 'bootstrap-key-for-identity-tests';

/** A mutable fake clock for the server's `now` start option. */
export class FakeClock {
  constructor(public current = new Date('2026-11-22T10:00:00.000Z')) {}
  readonly now = () => new Date(this.current.getTime());
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** A logger writing every line into `lines` (the secret-leak test greps them). */
export function arrayLogger(lines: string[]): Logger {
  const write = (level: string) => (obj: object | string, msg?: string) => {
    lines.push(
      `${level} ${typeof obj === 'string' ? obj : JSON.stringify(obj, (_k, v) => (v instanceof Error ? { message: v.message, stack: v.stack } : v))} ${msg ?? ''}`,
    );
  };
  return { info: write('info'), warn: write('warn'), error: write('error'), debug: write('debug') };
}

/**
 * Two auth servers on one store (default: one SQLite data dir in WAL mode; see
 * replica-backends.ts for MongoDB) sharing one clock: two replicas whose only shared state is
 * the store. `close` stops both and removes the data dir (and database).
 */
export async function startReplicaPair(
  clock: FakeClock,
  store: ReplicaStore = REPLICA_STORES[0],
): Promise<{ a: TestServer; b: TestServer; close: () => Promise<void> }> {
  const prepared = store.prepare();
  const a = await startAuthServer({ clock, overrides: prepared.overrides });
  const b = await startAuthServer({ clock, overrides: prepared.overrides });
  return {
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      await prepared.cleanup();
    },
  };
}

/** Starts the real server with auth on (`auth.enabled`) and the bootstrap key. */
export async function startAuthServer(options: { clock?: FakeClock; overrides?: Record<string, unknown>; start?: StartOptions } = {}): Promise<TestServer> {
  const clock = options.clock ?? new FakeClock();
  const { auth, ...rest } = (options.overrides ?? {}) as { auth?: Record<string, unknown> };
  return startTestServer({
    overrides: { auth: { enabled: true, api_key: BOOTSTRAP_KEY, ...auth }, ...rest },
    start: { now: clock.now, ...options.start },
  });
}

/** A signed-in (or not) caller: keeps the `mcp_session` cookie like a browser. */
export class Client {
  cookie: string | null = null;
  constructor(
    private readonly server: TestServer,
    private readonly headers: Record<string, string> = {},
  ) {}

  async call(
    method: string,
    path: string,
    json?: unknown,
    extra: Record<string, string> = {},
  ): Promise<{ status: number; body: any; text: string; headers: Headers }> {
    const headers: Record<string, string> = { ...this.headers, ...extra };
    if (this.cookie) headers.cookie = this.cookie;
    const res = await this.server.api(path, { method, headers, json });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie?.startsWith('mcp_session=')) {
      const value = setCookie.split(';')[0];
      this.cookie = value === 'mcp_session=' ? null : value;
    }
    const text = await res.text();
    let body: any = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = text;
    }
    return { status: res.status, body, text, headers: res.headers };
  }

  get = (path: string, extra?: Record<string, string>) => this.call('GET', path, undefined, extra);
  post = (path: string, json?: unknown, extra?: Record<string, string>) => this.call('POST', path, json, extra);
  patch = (path: string, json?: unknown) => this.call('PATCH', path, json);
  delete = (path: string) => this.call('DELETE', path);
}

/** The bootstrap key's client (owner of the default org, superadmin). */
export function bootstrap(server: TestServer): Client {
  return new Client(server, { 'X-API-Key': BOOTSTRAP_KEY });
}

/** Registers (optionally creating an org) and returns the signed-in client and ids. */
export async function registerUser(server: TestServer, email: string, options: { orgName?: string; password?: string; inviteToken?: string } = {}) {
  const client = new Client(server);
  const res = await client.post('/auth/register', {
    email,
    password: options.password ?? 'correct-horse-1',
    name: email.split('@')[0],
    ...(options.orgName ? { org_name: options.orgName } : {}),
    ...(options.inviteToken ? { invite_token: options.inviteToken } : {}),
  });
  if (res.status !== 201) throw new Error(`register ${email}: ${res.status} ${res.text}`);
  return { client, userId: res.body.user_id as string, orgId: res.body.org_id as string | null, role: res.body.role as string | null };
}

/**
 * Registers a user into `owner`'s org at `role` by signing up with an invitation addressed to
 * them (so the org created the account and administers it, unlike an add by e-mail or an
 * existing account accepting an invitation); the session is scoped to the org.
 */
export async function memberOf(server: TestServer, owner: Client, orgId: string, email: string, role: string) {
  const invite = await owner.post(`/orgs/${orgId}/invites`, { email, role });
  if (invite.status !== 201) throw new Error(`invite ${email}: ${invite.status} ${invite.text}`);
  return registerUser(server, email, { inviteToken: invite.body.token });
}

/** Registers an org-less account that then accepts an invitation addressed to it into `owner`'s org at `role`; the session is scoped to the org. */
export async function existingAccountJoins(server: TestServer, owner: Client, orgId: string, email: string, role: string) {
  const user = await registerUser(server, email);
  const invite = await owner.post(`/orgs/${orgId}/invites`, { email, role });
  if (invite.status !== 201) throw new Error(`invite ${email}: ${invite.status} ${invite.text}`);
  const accepted = await user.client.post(`/auth/me/invitations/${invite.body.invite_id}/accept`);
  if (accepted.status !== 200) throw new Error(`accept ${email}: ${accepted.status} ${accepted.text}`);
  return user;
}

/** Registers a user and adds them to `owner`'s org by e-mail (POST /orgs/{org_id}/members), then switches the session there. */
export async function addedByEmail(server: TestServer, owner: Client, orgId: string, email: string, role: string) {
  const user = await registerUser(server, email);
  const added = await owner.post(`/orgs/${orgId}/members`, { email, role });
  if (added.status !== 201) throw new Error(`add ${email}: ${added.status} ${added.text}`);
  const switched = await user.client.post('/auth/session/switch', { org_id: orgId });
  if (switched.status !== 200) throw new Error(`switch ${email}: ${switched.status} ${switched.text}`);
  return user;
}
