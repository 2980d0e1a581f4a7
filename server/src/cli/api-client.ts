/**
 * The few calls of the Planwarden API the `planwarden` command makes (analysis-api.md
 * "Server-side analysis", "Jobs", "Reports and report links"), over fetch with `X-API-Key`.
 * Every failure becomes a CliError carrying the server's `{detail}`, so the command can print
 * one line and exit 2.
 */

/** An error the command reports on stderr and answers with exit code 2 (usage, input, service). */
export class CliError extends Error {
  readonly exitCode = 2;
}

/** The job fields the command reads (analysis-api.md "Job"). */
export interface JobView {
  readonly job_id: string;
  readonly status: 'queued' | 'running' | 'done' | 'failed' | 'cancelled';
  readonly processed_count?: number;
  readonly total_count?: number;
  readonly resource_count?: number;
  readonly current_resource?: { resource_address?: string } | null;
  readonly quota_exceeded?: boolean;
  readonly error?: string | null;
}

export interface AnalyzeBody {
  readonly llm_backend: string;
  readonly model: string;
  readonly raw_input: string;
  readonly api_key?: string;
  readonly rule_type?: string;
}

export const TERMINAL_JOB_STATUSES: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);

export class ApiClient {
  private readonly base: string;

  /** `serverUrl`: the server's origin (with or without `/api/v1`); `apiKey` sent as X-API-Key when given. */
  constructor(serverUrl: string, private readonly apiKey: string | null) {
    let url: URL;
    try {
      url = new URL(serverUrl);
    } catch {
      throw new CliError(`--server must be an http(s) URL, got ${JSON.stringify(serverUrl)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`--server must be an http(s) URL, got ${JSON.stringify(serverUrl)}`);
    this.base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1`;
  }

  /**
   * POST /{namespace}/analyze/auto (analyzer `auto`) or /{analyzer}/{namespace}/analyze.
   * Returns `{job_id, inline}`: inline true for the 200 (sync) answer, false for 202 (queued).
   */
  async analyze(analyzer: string, namespace: string, body: AnalyzeBody): Promise<{ job_id: string; inline: boolean }> {
    const path = analyzer === 'auto'
      ? `/${encodeURIComponent(namespace)}/analyze/auto`
      : `/${encodeURIComponent(analyzer)}/${encodeURIComponent(namespace)}/analyze`;
    const res = await this.request('POST', path, JSON.stringify(body));
    const json = await res.json() as { job_id?: unknown };
    if (typeof json.job_id !== 'string') throw new CliError(`POST ${path}: the answer carries no job_id`);
    return { job_id: json.job_id, inline: res.status === 200 };
  }

  /** GET /jobs/{job_id}. */
  async job(jobId: string): Promise<JobView> {
    return await (await this.request('GET', `/jobs/${encodeURIComponent(jobId)}`)).json() as JobView;
  }

  /** GET /{namespace}/report?format=…&raw=true: the report document as text. */
  async report(namespace: string, format: 'markdown' | 'sarif'): Promise<string> {
    return (await this.request('GET', `/${encodeURIComponent(namespace)}/report?format=${format}&raw=true`)).text();
  }

  private async request(method: 'GET' | 'POST', path: string, body?: string): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json, text/*' };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    if (res.ok) return res;
    const text = await res.text();
    let detail = text.trim().slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { detail?: unknown };
      if (typeof parsed.detail === 'string') detail = parsed.detail;
    } catch {
      // not JSON: keep the text
    }
    throw new CliError(`${method} ${path.split('?')[0]} answered ${res.status}: ${detail || res.statusText}`);
  }
}
