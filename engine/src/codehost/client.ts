import type { AnalysisDeps } from '../analysis/analyze-service';
import type { RuleGateMode } from '../integrations/gate';

/**
 * What the code-host integration needs from the code host (GitHub REST, DESIGN.md "the code
 * host"), as an interface the engine owns; the server implements it with `@octokit/app`
 * (server/src/codehost/github-client.ts) against `codehost.api_base_url`.
 */

/** A pull request as the integration addresses it. */
export interface PullRef {
  readonly owner: string;
  readonly repo: string;
  readonly prNumber: number;
  readonly installationId: string;
}

/** An issue comment of a pull request. `appId`: the GitHub App that wrote it (`performed_via_github_app.id`), else null. */
export interface HostComment {
  readonly id: number;
  readonly body: string;
  readonly appId: string | null;
}

/** A commit status (GitHub "Create a commit status"). */
export interface CommitStatus {
  readonly state: 'failure' | 'pending' | 'success' | 'error';
  readonly context: string;
  /** At most 140 characters (GitHub truncates nothing: it refuses longer ones). */
  readonly description: string;
  readonly targetUrl: string | null;
}

/** A failed REST call; `status` is the HTTP status (404 for a deleted comment). */
export class CodeHostHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The calls made with an installation token of one app. Every method throws CodeHostHttpError on a non-2xx answer. */
export interface CodeHostClient {
  /** The pull request's unified diff. */
  pullDiff(ref: PullRef): Promise<string>;
  listComments(ref: PullRef): Promise<HostComment[]>;
  createComment(ref: PullRef, body: string): Promise<number>;
  updateComment(ref: PullRef, commentId: number, body: string): Promise<void>;
  postStatus(ref: PullRef, sha: string, status: CommitStatus): Promise<void>;
  /** The app itself (GitHub "Get the authenticated app", app JWT): where its installation link starts. */
  app(): Promise<HostApp>;
  /**
   * One installation of this app (GitHub "Get an installation for the authenticated app", app
   * JWT); null when GitHub answers 404 (no such installation of this app).
   */
  installation(installationId: string): Promise<HostInstallation | null>;
}

/** The app as GitHub presents it; `htmlUrl` is its public page (`https://github.com/apps/<slug>`). */
export interface HostApp {
  readonly id: string;
  readonly slug: string;
  readonly htmlUrl: string;
}

/** An installation of an app: its id, the app it belongs to and when it was created (ISO-8601). */
export interface HostInstallation {
  readonly id: string;
  readonly appId: string;
  readonly createdAt: string;
}

/** A GitHub App able to mint installation tokens. */
export interface AppIdentity {
  readonly appId: string;
  readonly privateKey: string;
}

/** What a manifest code exchange returns (GitHub "Create a GitHub App from a manifest"). */
export interface ManifestConversion {
  readonly id: string;
  readonly slug: string;
  readonly html_url: string;
  readonly pem: string;
  readonly webhook_secret: string;
}

/** The platform settings the integration reads at every call (identity-api.md "Platform settings"). */
export interface CodehostSettings {
  /** The platform app (`codehost.app_id`, `private_key`, `webhook_secret`); null fields = not configured. */
  readonly app_id: string | null;
  readonly private_key: string | null;
  readonly webhook_secret: string | null;
  /** `codehost.web_base_url`: where the manifest form is posted (`https://github.com`). */
  readonly web_base_url: string;
  readonly mention_prefix: string;
  readonly public_base_url: string | null;
  readonly dashboard_base_url: string | null;
  readonly injection_scan_enabled: boolean;
  readonly injection_scan_gate: RuleGateMode;
}

/** Everything the code-host services need beyond the engine context. */
export interface CodehostDeps {
  readonly analysis: AnalysisDeps;
  readonly settings: () => CodehostSettings;
  /** A client for one app (tokens minted and cached per app by the implementation). */
  readonly clientFor: (identity: AppIdentity) => CodeHostClient;
  /** Exchanges a manifest flow's code for the new app's credentials (unauthenticated call). */
  readonly convertManifest: (code: string) => Promise<ManifestConversion>;
}
