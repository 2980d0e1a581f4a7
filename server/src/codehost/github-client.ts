import { createHash } from 'node:crypto';
import { App } from '@octokit/app';
import { Octokit } from '@octokit/core';
import {
  CodeHostHttpError,
  type AppIdentity,
  type CodeHostClient,
  type HostComment,
  type HostInstallation,
  type ManifestConversion,
  type PullRef,
} from '@planwarden/engine/codehost/client';
import type { Logger } from '@planwarden/engine/core/logger';

/**
 * The GitHub implementation of the engine's CodeHostClient (DESIGN.md "the code host": a GitHub
 * App through `@octokit/app`). Every REST call goes to `codehost.api_base_url` (GitHub.com or
 * GitHub Enterprise Server; tests point it at their fake), which the operator sets and is
 * trusted (DESIGN.md "Outbound traffic"). Installation tokens are minted from the app's JWT and
 * cached per app by `@octokit/auth-app`.
 */

/** Comment pages read at most when looking for the report comment (100 per page). */
const MAX_COMMENT_PAGES = 30;

function statusOf(error: unknown): number {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : 0;
}

/** Turns an Octokit RequestError into the engine's CodeHostHttpError (status kept, message without the token). */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new CodeHostHttpError(statusOf(error), `GitHub ${what} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function quietLog(log: Logger) {
  return {
    debug: () => {},
    info: () => {},
    warn: (message: string) => log.warn({ source: 'octokit' }, message),
    error: (message: string) => log.error({ source: 'octokit' }, message),
  };
}

/**
 * Builds the client factory. `apiBaseUrl` is read at every call (the setting applies on the
 * next request). One `App` per (base URL, app id, key) is kept so its token cache is reused.
 */
export function gitHubClients(
  apiBaseUrl: () => string,
  log: Logger,
): { clientFor: (identity: AppIdentity) => CodeHostClient; convertManifest: (code: string) => Promise<ManifestConversion> } {
  const apps = new Map<string, App>();
  const appFor = (identity: AppIdentity): App => {
    const baseUrl = apiBaseUrl().replace(/\/+$/, '');
    const key = `${baseUrl}\u0000${identity.appId}\u0000${createHash('sha256').update(identity.privateKey).digest('hex')}`;
    let app = apps.get(key);
    if (!app) {
      app = new App({ appId: identity.appId, privateKey: identity.privateKey, Octokit: Octokit.defaults({ baseUrl, log: quietLog(log) }), log: quietLog(log) });
      apps.set(key, app);
    }
    return app;
  };

  const clientFor = (identity: AppIdentity): CodeHostClient => {
    const installation = (ref: PullRef) => call('installation token', () => appFor(identity).getInstallationOctokit(Number(ref.installationId)));
    const repo = (ref: PullRef) => ({ owner: ref.owner, repo: ref.repo });
    return {
      async pullDiff(ref) {
        const octokit = await installation(ref);
        const response = await call('pull request diff', () =>
          octokit.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
            ...repo(ref),
            pull_number: ref.prNumber,
            mediaType: { format: 'diff' },
          }),
        );
        return String(response.data as unknown);
      },
      async listComments(ref) {
        const octokit = await installation(ref);
        const comments: HostComment[] = [];
        for (let page = 1; page <= MAX_COMMENT_PAGES; page += 1) {
          const response = await call('comment list', () =>
            octokit.request('GET /repos/{owner}/{repo}/issues/{issue_number}/comments', {
              ...repo(ref),
              issue_number: ref.prNumber,
              per_page: 100,
              page,
            }),
          );
          for (const c of response.data) {
            const appId = c.performed_via_github_app?.id;
            comments.push({ id: Number(c.id), body: c.body ?? '', appId: appId === undefined || appId === null ? null : String(appId) });
          }
          if (response.data.length < 100) break;
        }
        return comments;
      },
      async createComment(ref, body) {
        const octokit = await installation(ref);
        const response = await call('comment creation', () =>
          octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', {
            ...repo(ref),
            issue_number: ref.prNumber,
            body,
          }),
        );
        return Number(response.data.id);
      },
      async updateComment(ref, commentId, body) {
        const octokit = await installation(ref);
        await call('comment update', () =>
          octokit.request('PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}', { ...repo(ref), comment_id: commentId, body }),
        );
      },
      async postStatus(ref, sha, status) {
        const octokit = await installation(ref);
        await call('commit status', () =>
          octokit.request('POST /repos/{owner}/{repo}/statuses/{sha}', {
            ...repo(ref),
            sha,
            state: status.state,
            context: status.context,
            description: status.description.slice(0, 140),
            ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
          }),
        );
      },
      async app() {
        const response = await call('app lookup', () => appFor(identity).octokit.request('GET /app'));
        const data = response.data as unknown as Record<string, unknown>;
        return { id: String(data.id), slug: String(data.slug ?? ''), htmlUrl: String(data.html_url ?? '') };
      },
      async installation(installationId): Promise<HostInstallation | null> {
        try {
          const response = await call('installation lookup', () =>
            appFor(identity).octokit.request('GET /app/installations/{installation_id}', { installation_id: Number(installationId) }),
          );
          const data = response.data as unknown as Record<string, unknown>;
          return { id: String(data.id), appId: String(data.app_id), createdAt: String(data.created_at ?? '') };
        } catch (error) {
          if (error instanceof CodeHostHttpError && error.status === 404) return null;
          throw error;
        }
      },
    };
  };

  const convertManifest = async (code: string): Promise<ManifestConversion> => {
    const octokit = new Octokit({ baseUrl: apiBaseUrl().replace(/\/+$/, ''), log: quietLog(log) });
    const response = await call('manifest conversion', () => octokit.request('POST /app-manifests/{code}/conversions', { code }));
    const data = response.data as unknown as Record<string, unknown>;
    return {
      id: String(data.id),
      slug: String(data.slug ?? ''),
      html_url: String(data.html_url ?? ''),
      pem: String(data.pem ?? ''),
      webhook_secret: String(data.webhook_secret ?? ''),
    };
  };
  return { clientFor, convertManifest };
}
