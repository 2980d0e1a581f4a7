import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { basename, isAbsolute, relative, resolve, sep } from 'node:path';
import { decodeText } from '@planwarden/engine/core/decode';
import type { LlmBackend } from '@planwarden/engine/llm/types';
import { serializeSarif } from '@planwarden/engine/report/sarif';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, CliError, TERMINAL_JOB_STATUSES, TimeoutError, type AnalyzeBody, type JobView } from './api-client';
import { formatDuration } from './duration';
import { startLocalServer } from './local-server';
import { evaluate, jsonDocument, locateInInput, summaryLine, type FailOn } from './outcome';
import { createProgress, type ProgressStream } from './progress';
import { terminalSafe } from './terminal-safe';

/** `planwarden analyze` options after parsing (planwarden.ts). */
export interface AnalyzeOptions {
  readonly file: string;
  /** Server origin; null = local mode (an in-process server on 127.0.0.1). */
  readonly server: string | null;
  readonly apiKey: string | null;
  /** Analyzer name, or `auto` for auto-routing. */
  readonly analyzer: string;
  readonly backend: LlmBackend;
  readonly model: string;
  readonly ruleType: string | null;
  /** Null = a fresh `cli-<file>-<time>-<random>` namespace per run. */
  readonly namespace: string | null;
  readonly format: 'markdown' | 'json' | 'sarif';
  readonly output: string | null;
  readonly failOn: FailOn;
  /** Local mode only; null = a throwaway directory. */
  readonly dataDir: string | null;
  /** Send the provider key from OPENAI_API_KEY / ANTHROPIC_API_KEY (false: the server's stored credential). */
  readonly llmKey: boolean;
  /** Job polling interval, ms. */
  readonly pollMs: number;
  /** How long the command waits for the server, from its first request to the report (--timeout), ms. */
  readonly timeoutMs: number;
}

export interface CliIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: ProgressStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  readonly now: () => Date;
}

/** The environment variable holding each provider's key, as the providers' own SDKs read it. */
export const PROVIDER_KEY_VARIABLES: Readonly<Record<LlmBackend, string | null>> = {
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  ollama: null,
};

/** `cli-<file name>-<UTC time>-<random>`, within the namespace pattern (letters, digits, `.`, `_`, `-`; ≤ 128). */
export function defaultNamespace(file: string, now: Date): string {
  const stem =
    basename(file)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[-._]+|[-._]+$/g, '')
      .slice(0, 60) || 'input';
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `cli-${stem}-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** `file` relative to `cwd` with `/` separators, or its absolute path when it lies outside `cwd`. */
function artifactPath(file: string, cwd: string): string {
  const abs = resolve(cwd, file);
  const rel = relative(cwd, abs);
  const chosen = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
  return chosen.split(sep).join('/');
}

/** Waits `ms`; throws TimeoutError when `signal` (the --timeout) fires first. */
async function pause(ms: number, signal: AbortSignal): Promise<void> {
  try {
    await sleep(ms, undefined, { signal });
  } catch {
    throw new TimeoutError('pause cut short by the timeout');
  }
}

/** Polls the job until it is terminal, showing progress; `seen` gets each status read. */
async function waitForJob(client: ApiClient, jobId: string, io: CliIo, pollMs: number, signal: AbortSignal, seen: (status: string) => void): Promise<JobView> {
  const progress = createProgress(io.stderr);
  progress.note(`job ${jobId} queued`);
  try {
    for (;;) {
      const job = await client.job(jobId);
      seen(job.status);
      if (job.status !== 'queued') {
        progress.update(job.processed_count ?? 0, job.total_count ?? job.resource_count ?? 0, job.current_resource?.resource_address ?? null);
      }
      if (TERMINAL_JOB_STATUSES.has(job.status)) return job;
      await pause(pollMs, signal);
    }
  } finally {
    progress.stop();
  }
}

/**
 * `planwarden analyze FILE`: analyses the file through a Planwarden server (`--server`) or an
 * in-process one (local mode), waits for the job with progress on stderr, fetches the report
 * (markdown, or SARIF 2.1.0 for `sarif` and `json`), writes it to `--output` or stdout and
 * returns the exit code: 0 when no open finding is at or above `--fail-on`, 1 when one is.
 * Throws CliError (exit 2) for an unreadable file, a refused request, an answer of the wrong
 * shape (answers.ts), a failed or cancelled job, or `timeoutMs` passing before the report is in
 * (naming the job). Everything printed passes through terminalSafe.
 */
export async function runAnalyze(options: AnalyzeOptions, io: CliIo): Promise<number> {
  let bytes: Buffer;
  try {
    bytes = await readFile(resolve(io.cwd, options.file));
  } catch (error) {
    throw new CliError(`cannot read ${options.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const text = decodeText(bytes);
  if (text.trim() === '') throw new CliError(`${options.file} is empty`);
  const namespace = options.namespace ?? defaultNamespace(options.file, io.now());
  const keyVariable = PROVIDER_KEY_VARIABLES[options.backend];
  const llmKey = options.llmKey && keyVariable ? io.env[keyVariable]?.trim() || null : null;

  const say = (line: string) => {
    io.stderr.write(`${terminalSafe(line, 'line')}\n`);
  };
  const local = options.server ? null : await startLocalServer({ dataDir: options.dataDir, env: io.env, backend: options.backend, model: options.model });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  let waitingFor = 'the server to accept the analysis';
  try {
    const client = local ? new ApiClient(local.url, local.apiKey, deadline.signal) : new ApiClient(options.server!, options.apiKey, deadline.signal);
    const body: AnalyzeBody = {
      llm_backend: options.backend,
      model: options.model,
      raw_input: text,
      ...(llmKey ? { api_key: llmKey } : {}),
      ...(options.ruleType && options.analyzer !== 'auto' ? { rule_type: options.ruleType } : {}),
    };
    say(`analysing ${options.file} in namespace ${namespace} (${local ? 'local engine' : options.server})`);
    let started: { job_id: string; inline: boolean };
    try {
      started = await client.analyze(options.analyzer, namespace, body);
    } catch (error) {
      if (local && keyVariable && !llmKey && error instanceof CliError && / 400: No api_key/.test(error.message)) {
        throw new CliError(`${error.message} (set ${keyVariable})`);
      }
      throw error;
    }
    const jobId = started.job_id;
    waitingFor = `job ${jobId}`;
    const job = started.inline
      ? await client.job(jobId)
      : await waitForJob(client, jobId, io, options.pollMs, deadline.signal, (status) => {
          waitingFor = `job ${jobId} (still ${status})`;
        });
    if (job.status !== 'done') throw new CliError(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
    say(`job ${job.job_id} done: ${job.processed_count ?? job.resource_count ?? 0} unit(s) analysed`);
    if (job.quota_exceeded) say('warning: the monthly spend cap stopped the run; the report is partial');

    waitingFor = `the report of job ${jobId}`;
    const log = locateInInput(await client.sarifReport(namespace), { uri: artifactPath(options.file, io.cwd), text });
    const outcome = evaluate(log, options.failOn);
    const document = terminalSafe(
      options.format === 'sarif'
        ? serializeSarif(log)
        : options.format === 'json'
          ? `${JSON.stringify(jsonDocument(log, outcome, { namespace, job_id: job.job_id, fail_on: options.failOn }), null, 2)}\n`
          : await client.markdownReport(namespace),
    );
    if (options.output) {
      await writeFile(resolve(io.cwd, options.output), document).catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`cannot write ${options.output}: ${error.code ?? error.message}`);
      });
      say(`report written to ${options.output}`);
    } else {
      io.stdout.write(document);
    }
    say(summaryLine(outcome, options.failOn));
    return outcome.blocking > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof TimeoutError) throw new CliError(`timed out after ${formatDuration(options.timeoutMs)} (--timeout) waiting for ${waitingFor}`);
    throw error;
  } finally {
    clearTimeout(timer);
    await local?.close();
  }
}
