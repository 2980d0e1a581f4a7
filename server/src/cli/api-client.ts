import type * as Sarif from 'sarif';
import type { z } from 'zod';
import { AnalyzeAnswerSchema, describeIssues, JobSchema, SarifLogSchema, type JobView } from './answers';
import { CliError, HttpError, TimeoutError } from './errors';

/**
 * The few calls of the Planwarden API the `planwarden` command makes (analysis-api.md
 * "Server-side analysis", "Jobs", "Reports and report links"), over fetch with `X-API-Key`.
 * Every failure becomes a CliError (HttpError for a non-2xx answer) carrying the server's `{detail}`, so the command can print
 * one line and exit 2; so does an answer that is not JSON or not of the expected shape
 * (answers.ts: the command fails closed).
 */

export { CliError, HttpError, TimeoutError } from './errors';

export type { JobView };

/** The analyze request; no `llm_backend`/`model` = the deterministic checks only (docs/decisions.md "Checks only"). */
export interface AnalyzeBody {
  readonly llm_backend?: string;
  readonly model?: string;
  readonly raw_input: string;
  readonly api_key?: string;
  readonly rule_type?: string;
  /** Record the input in the namespace's current run instead of a new one (docs/decisions.md "Runs compared"). */
  readonly continue_run?: boolean;
}

export const TERMINAL_JOB_STATUSES: ReadonlySet<string> = new Set(['done', 'failed', 'cancelled']);

export class ApiClient {
  private readonly base: string;

  /**
   * `serverUrl`: the server's origin (with or without `/api/v1`); `apiKey` sent as X-API-Key
   * when given; `signal` (the command's `--timeout`) aborts any request in flight, which then
   * throws TimeoutError. Throws CliError for a URL that is not http(s).
   */
  constructor(
    serverUrl: string,
    private readonly apiKey: string | null,
    private readonly signal?: AbortSignal,
  ) {
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
    const path =
      analyzer === 'auto' ? `/${encodeURIComponent(namespace)}/analyze/auto` : `/${encodeURIComponent(analyzer)}/${encodeURIComponent(namespace)}/analyze`;
    const res = await this.request('POST', path, JSON.stringify(body));
    const answer = parseAnswer(`POST ${path}`, res.text, AnalyzeAnswerSchema, 'analysis answer');
    return { job_id: answer.job_id, inline: res.status === 200 };
  }

  /** Whether `job` has ended (done, failed or cancelled): no further progress to wait for. */
  isTerminal(job: JobView): boolean {
    return TERMINAL_JOB_STATUSES.has(job.status);
  }

  /** GET /jobs/{job_id}; throws CliError when the answer is not that job. */
  async job(jobId: string): Promise<JobView> {
    const path = `/jobs/${encodeURIComponent(jobId)}`;
    const job = parseAnswer(`GET ${path}`, (await this.request('GET', path)).text, JobSchema, 'job');
    if (job.job_id !== jobId) throw new CliError(`GET ${path}: the server answered with another job (${job.job_id})`);
    return job;
  }

  /** GET /{namespace}/report?format=sarif&raw=true, validated (answers.ts SarifLogSchema) and returned as received. */
  async sarifReport(namespace: string): Promise<Sarif.Log> {
    const path = `/${encodeURIComponent(namespace)}/report`;
    const text = (await this.request('GET', `${path}?format=sarif&raw=true`)).text;
    return parseAnswer(`GET ${path}`, text, SarifLogSchema, 'SARIF report') as unknown as Sarif.Log;
  }

  /** GET /{namespace}/report?format=markdown&raw=true: the report document as text. */
  async markdownReport(namespace: string): Promise<string> {
    return (await this.request('GET', `/${encodeURIComponent(namespace)}/report?format=markdown&raw=true`)).text;
  }

  /** One request; the whole body read as text. Throws CliError (unreachable, non-2xx) or TimeoutError. */
  private async request(method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json, text/*' };
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const what = `${method} ${path.split('?')[0]}`;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${this.base}${path}`, { method, headers, body, signal: this.signal });
      text = await res.text();
    } catch (error) {
      if (this.signal?.aborted) throw new TimeoutError(`${what}: no answer before the timeout`);
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.base}: ${cause?.code ?? cause?.message ?? (error as Error).message}`);
    }
    if (res.ok) return { status: res.status, text };
    let detail = text.trim().slice(0, 500);
    try {
      const parsed = JSON.parse(text) as { detail?: unknown };
      if (typeof parsed.detail === 'string') detail = parsed.detail;
    } catch {
      // not JSON: keep the text
    }
    throw new HttpError(`${what} answered ${res.status}: ${detail || res.statusText}`, res.status);
  }
}

/**
 * `text` parsed as JSON and checked against `schema`; CliError naming `what` and the first issues
 * otherwise. Returns the value as received, not zod's copy (the schemas transform nothing, and a
 * SARIF log is written out with its keys in the server's order).
 */
function parseAnswer<T extends z.ZodType>(request: string, text: string, schema: T, what: string): z.infer<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${request}: the server's answer is not JSON (${(error as Error).message})`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new CliError(`${request}: the server's answer is not a valid ${what}: ${describeIssues(parsed.error)}`);
  return json as z.infer<T>;
}
