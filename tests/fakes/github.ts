/**
 * A fake GitHub REST API on 127.0.0.1 (STYLE.md "Tests": external services are real local HTTP
 * servers). Octokit talks to it through `codehost.api_base_url` exactly as to api.github.com:
 * - POST /app/installations/{id}/access_tokens: the app's RS256 JWT is verified with the app's
 *   public key (jose) and must name the app (`iss`) the installation belongs to;
 * - GET /repos/{o}/{r}/pulls/{n} with `Accept: application/vnd.github.v3.diff`: the diff;
 * - GET/POST /repos/{o}/{r}/issues/{n}/comments, PATCH/DELETE /repos/{o}/{r}/issues/comments/{id}
 *   (a body over 65,536 characters is refused with 422, as GitHub does);
 * - POST /repos/{o}/{r}/statuses/{sha};
 * - POST /app-manifests/{code}/conversions;
 * - GET /app and GET /app/installations/{id} with the app's JWT (an installation of another app
 *   answers 404, as GitHub does);
 * - the web side of installing an app: GET /apps/{slug}/installations/new?state=… creates an
 *   installation (as the user clicking Install) and redirects to the app's setup URL with
 *   `installation_id`, `setup_action=install` and the `state` echoed (GitHub "About the setup URL").
 * Every repository call needs `Authorization: token <installation token>`. Also builds webhook
 * payloads of the shapes in GitHub's webhook docs, signed like GitHub signs them.
 */
import { createHmac, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, jwtVerify } from 'jose';

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: 'User' | 'Bot' };
  performed_via_github_app: { id: number; slug: string } | null;
  author_association: string;
  created_at: string;
  updated_at: string;
}

export interface FakeStatus {
  readonly owner: string;
  readonly repo: string;
  readonly sha: string;
  readonly state: string;
  readonly context: string;
  readonly description: string;
  readonly target_url: string | null;
}

export interface FakeGitHub {
  /** `http://127.0.0.1:<port>`: the value for `codehost.api_base_url`. */
  readonly url: string;
  /** Method and path of every request, in order. */
  readonly requests: { method: string; path: string }[];
  readonly statuses: FakeStatus[];
  /** Registers an app; returns its PEM private key (PKCS#8) for the server's configuration. */
  addApp(appId: number, slug: string): string;
  /** `createdAt`: the installation's `created_at` (default: the fake's clock now). */
  addInstallation(installationId: number, appId: number, createdAt?: Date): void;
  /** The app's setup URL, where its installation page redirects after installing. */
  setSetupUrl(appId: number, url: string): void;
  setDiff(owner: string, repo: string, pr: number, diff: string): void;
  comments(owner: string, repo: string, pr: number): FakeComment[];
  /** A comment written by a person (or by someone copying the marker). */
  addUserComment(owner: string, repo: string, pr: number, login: string, body: string): FakeComment;
  deleteComment(id: number): void;
  /** The manifest conversion answer for `code` (single use). */
  addManifestCode(code: string, appId: number, slug: string): void;
  close(): Promise<void>;
}

export function signWebhook(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

function repository(owner: string, repo: string, isPrivate: boolean) {
  return {
    id: 1296269,
    node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
    name: repo,
    full_name: `${owner}/${repo}`,
    private: isPrivate,
    owner: { login: owner, id: 1, type: 'Organization' },
    html_url: `https://github.com/${owner}/${repo}`,
    default_branch: 'main',
  };
}

/** A `pull_request` webhook payload (GitHub docs "Webhook events and payloads"). */
export function pullRequestPayload(options: {
  action: string;
  owner: string;
  repo: string;
  pr: number;
  sha: string;
  installationId: number;
  title?: string;
  body?: string;
  isPrivate?: boolean;
}) {
  const { owner, repo, pr } = options;
  return {
    action: options.action,
    number: pr,
    pull_request: {
      url: `https://api.github.com/repos/${owner}/${repo}/pulls/${pr}`,
      id: 1000 + pr,
      number: pr,
      state: 'open',
      locked: false,
      title: options.title ?? 'Update infrastructure',
      body: options.body ?? 'Routine change.',
      user: { login: 'octocat', id: 583231, type: 'User' },
      head: { label: `${owner}:feature`, ref: 'feature', sha: options.sha, repo: repository(owner, repo, options.isPrivate ?? false) },
      base: { label: `${owner}:main`, ref: 'main', sha: '0'.repeat(40), repo: repository(owner, repo, options.isPrivate ?? false) },
      html_url: `https://github.com/${owner}/${repo}/pull/${pr}`,
      diff_url: `https://github.com/${owner}/${repo}/pull/${pr}.diff`,
      draft: false,
      merged: false,
    },
    repository: repository(owner, repo, options.isPrivate ?? false),
    installation: { id: options.installationId, node_id: 'MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9uMQ==' },
    sender: { login: 'octocat', id: 583231, type: 'User' },
  };
}

/** An `issue_comment` webhook payload on a pull request. */
export function issueCommentPayload(options: {
  action?: string;
  owner: string;
  repo: string;
  pr: number;
  installationId: number;
  commentId: number;
  body: string;
  login?: string;
  association?: string;
  isPrivate?: boolean;
  viaAppId?: number;
}) {
  const { owner, repo, pr } = options;
  return {
    action: options.action ?? 'created',
    issue: {
      number: pr,
      title: 'Update infrastructure',
      state: 'open',
      user: { login: 'octocat', id: 583231, type: 'User' },
      pull_request: { url: `https://api.github.com/repos/${owner}/${repo}/pulls/${pr}`, html_url: `https://github.com/${owner}/${repo}/pull/${pr}` },
    },
    comment: {
      id: options.commentId,
      body: options.body,
      html_url: `https://github.com/${owner}/${repo}/pull/${pr}#issuecomment-${options.commentId}`,
      user: { login: options.login ?? 'reviewer', id: 42, type: options.viaAppId ? 'Bot' : 'User' },
      author_association: options.association ?? 'MEMBER',
      performed_via_github_app: options.viaAppId ? { id: options.viaAppId, slug: 'app' } : null,
    },
    repository: repository(owner, repo, options.isPrivate ?? false),
    installation: { id: options.installationId },
    sender: { login: options.login ?? 'reviewer', id: 42, type: 'User' },
  };
}

/** An `installation` webhook payload. */
export function installationPayload(action: 'created' | 'deleted', installationId: number, appId: number) {
  return {
    action,
    installation: { id: installationId, app_id: appId, account: { login: 'acme', id: 1, type: 'Organization' }, target_type: 'Organization' },
    repositories: [],
    sender: { login: 'octocat', id: 583231, type: 'User' },
  };
}

/** `now`: the clock installations are created by (the server's fake clock, when the test has one). */
export async function startFakeGitHub(options: { now?: () => Date } = {}): Promise<FakeGitHub> {
  const now = options.now ?? (() => new Date());
  const apps = new Map<number, { slug: string; publicKey: KeyObject }>();
  const installations = new Map<number, { appId: number; createdAt: Date }>();
  const setupUrls = new Map<number, string>();
  let nextInstallationId = 880_000;
  let baseUrl = '';
  const tokens = new Map<string, { installationId: number; appId: number }>();
  const diffs = new Map<string, string>();
  const comments = new Map<string, FakeComment[]>();
  const manifestCodes = new Map<string, { appId: number; slug: string }>();
  const statuses: FakeStatus[] = [];
  const requests: { method: string; path: string }[] = [];
  let nextCommentId = 5000;
  const issueKey = (owner: string, repo: string, pr: number) => `${owner}/${repo}#${pr}`;

  function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
    res.writeHead(status, { 'content-type': type });
    res.end(type === 'application/json' ? JSON.stringify(body) : String(body));
  }

  function newComment(body: string, login: string, app: { id: number; slug: string } | null): FakeComment {
    const now = new Date().toISOString();
    return {
      id: nextCommentId++,
      body,
      user: { login, type: app ? 'Bot' : 'User' },
      performed_via_github_app: app,
      author_association: app ? 'NONE' : 'MEMBER',
      created_at: now,
      updated_at: now,
    };
  }

  function findComment(id: number): { list: FakeComment[]; index: number } | null {
    for (const list of comments.values()) {
      const index = list.findIndex((c) => c.id === id);
      if (index >= 0) return { list, index };
    }
    return null;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const method = req.method ?? 'GET';
    requests.push({ method, path });
    const auth = req.headers.authorization ?? '';
    const json = () => (raw ? (JSON.parse(raw) as Record<string, unknown>) : {});

    /** The app whose RS256 JWT authorizes the call (its `iss`, verified with its key), else null. */
    const jwtApp = async (): Promise<number | null> => {
      const jwt = /^bearer (.+)$/i.exec(auth)?.[1] ?? '';
      try {
        const appId = Number(decodeJwt(jwt).iss);
        const app = apps.get(appId);
        if (!app) return null;
        await jwtVerify(jwt, app.publicKey, { algorithms: ['RS256'] });
        return appId;
      } catch {
        return null;
      }
    };

    let m = /^\/apps\/([^/]+)\/installations\/new$/.exec(path);
    if (m && method === 'GET') {
      const appId = [...apps.entries()].find(([, app]) => app.slug === m![1])?.[0];
      const setupUrl = appId === undefined ? undefined : setupUrls.get(appId);
      if (appId === undefined || !setupUrl) return send(res, 404, 'Not Found', 'text/plain');
      const installationId = nextInstallationId++;
      installations.set(installationId, { appId, createdAt: now() });
      const target = new URL(setupUrl);
      target.searchParams.set('installation_id', String(installationId));
      target.searchParams.set('setup_action', 'install');
      const state = url.searchParams.get('state');
      if (state !== null) target.searchParams.set('state', state);
      res.writeHead(302, { location: target.href }).end();
      return;
    }
    if (path === '/app' && method === 'GET') {
      const appId = await jwtApp();
      if (appId === null) return send(res, 401, { message: 'A JSON web token could not be decoded' });
      const slug = apps.get(appId)!.slug;
      return send(res, 200, { id: appId, slug, name: slug, html_url: `${baseUrl}/apps/${slug}`, owner: { login: 'acme' } });
    }
    m = /^\/app\/installations\/(\d+)$/.exec(path);
    if (m && method === 'GET') {
      const appId = await jwtApp();
      if (appId === null) return send(res, 401, { message: 'A JSON web token could not be decoded' });
      const installation = installations.get(Number(m[1]));
      if (!installation || installation.appId !== appId) return send(res, 404, { message: 'Not Found' });
      return send(res, 200, {
        id: Number(m[1]),
        app_id: appId,
        app_slug: apps.get(appId)!.slug,
        target_type: 'Organization',
        account: { login: 'acme', id: 1, type: 'Organization' },
        created_at: installation.createdAt.toISOString(),
        updated_at: installation.createdAt.toISOString(),
      });
    }
    m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (m && method === 'POST') {
      const installationId = Number(m[1]);
      const appId = installations.get(installationId)?.appId;
      const jwt = /^bearer (.+)$/i.exec(auth)?.[1];
      if (appId === undefined) return send(res, 404, { message: 'Not Found' });
      try {
        const { payload } = await jwtVerify(jwt ?? '', apps.get(appId)!.publicKey, { algorithms: ['RS256'] });
        if (String(payload.iss) !== String(appId)) throw new Error('wrong issuer');
      } catch {
        return send(res, 401, { message: 'A JSON web token could not be decoded' });
      }
      const token = `ghs_${randomBytes(18).toString('hex')}`;
      tokens.set(token, { installationId, appId });
      return send(res, 201, {
        token,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: { pull_requests: 'read', issues: 'write', statuses: 'write' },
        repository_selection: 'all',
      });
    }
    m = /^\/app-manifests\/([^/]+)\/conversions$/.exec(path);
    if (m && method === 'POST') {
      const app = manifestCodes.get(m[1]);
      if (!app) return send(res, 404, { message: 'Not Found' });
      manifestCodes.delete(m[1]);
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      apps.set(app.appId, { slug: app.slug, publicKey });
      return send(res, 201, {
        id: app.appId,
        slug: app.slug,
        html_url: `https://github.com/apps/${app.slug}`,
        owner: { login: 'acme' },
        name: app.slug,
        client_id: 'Iv1.fake',
        client_secret: 'fake-client-secret',
        webhook_secret: `whsec-${app.slug}`,
        pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      });
    }

    const token = /^(?:token|bearer) (ghs_[0-9a-f]+)$/i.exec(auth)?.[1];
    const caller = token ? tokens.get(token) : undefined;
    if (!caller) return send(res, 401, { message: 'Bad credentials' });
    const app = { id: caller.appId, slug: apps.get(caller.appId)!.slug };

    m = /^\/repos\/([^/]+)\/([^/]+)\/pulls\/(\d+)$/.exec(path);
    if (m && method === 'GET') {
      const diff = diffs.get(issueKey(m[1], m[2], Number(m[3])));
      if (diff === undefined) return send(res, 404, { message: 'Not Found' });
      if (!String(req.headers.accept ?? '').includes('application/vnd.github.v3.diff')) return send(res, 200, { number: Number(m[3]) });
      return send(res, 200, diff, 'text/plain; charset=utf-8');
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    if (m) {
      const key = issueKey(m[1], m[2], Number(m[3]));
      const list = comments.get(key) ?? [];
      comments.set(key, list);
      if (method === 'GET') {
        const perPage = Number(url.searchParams.get('per_page') ?? 30);
        const page = Number(url.searchParams.get('page') ?? 1);
        return send(res, 200, list.slice((page - 1) * perPage, page * perPage));
      }
      if (method === 'POST') {
        const body = String(json().body ?? '');
        if (body.length > 65_536)
          return send(res, 422, {
            message: 'Validation Failed',
            errors: [{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }],
          });
        const comment = newComment(body, `${app.slug}[bot]`, app);
        list.push(comment);
        return send(res, 201, comment);
      }
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)$/.exec(path);
    if (m) {
      const found = findComment(Number(m[3]));
      if (!found) return send(res, 404, { message: 'Not Found' });
      if (method === 'PATCH') {
        const comment = found.list[found.index];
        if (comment.performed_via_github_app?.id !== app.id) return send(res, 403, { message: 'Resource not accessible by integration' });
        const body = String(json().body ?? '');
        if (body.length > 65_536) return send(res, 422, { message: 'Validation Failed' });
        comment.body = body;
        comment.updated_at = new Date().toISOString();
        return send(res, 200, comment);
      }
      if (method === 'DELETE') {
        found.list.splice(found.index, 1);
        res.writeHead(204).end();
        return;
      }
    }
    m = /^\/repos\/([^/]+)\/([^/]+)\/statuses\/([0-9a-f]{40})$/.exec(path);
    if (m && method === 'POST') {
      const body = json();
      const description = String(body.description ?? '');
      if (description.length > 140) return send(res, 422, { message: 'Validation Failed' });
      const status: FakeStatus = {
        owner: m[1],
        repo: m[2],
        sha: m[3],
        state: String(body.state),
        context: String(body.context ?? 'default'),
        description,
        target_url: (body.target_url as string | undefined) ?? null,
      };
      statuses.push(status);
      return send(res, 201, { ...status, id: statuses.length, created_at: new Date().toISOString() });
    }
    return send(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((error: unknown) => send(res, 500, { message: String(error) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    requests,
    statuses,
    addApp(appId, slug) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      apps.set(appId, { slug, publicKey });
      return privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    },
    addInstallation(installationId, appId, createdAt) {
      installations.set(installationId, { appId, createdAt: createdAt ?? now() });
    },
    setSetupUrl(appId, setupUrl) {
      setupUrls.set(appId, setupUrl);
    },
    setDiff(owner, repo, pr, diff) {
      diffs.set(issueKey(owner, repo, pr), diff);
    },
    comments(owner, repo, pr) {
      return comments.get(issueKey(owner, repo, pr)) ?? [];
    },
    addUserComment(owner, repo, pr, login, body) {
      const key = issueKey(owner, repo, pr);
      const comment = newComment(body, login, null);
      comments.set(key, [...(comments.get(key) ?? []), comment]);
      return comment;
    },
    deleteComment(id) {
      const found = findComment(id);
      if (found) found.list.splice(found.index, 1);
    },
    addManifestCode(code, appId, slug) {
      manifestCodes.set(code, { appId, slug });
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
