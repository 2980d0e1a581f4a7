import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { LlmBackend } from '@planwarden/engine/llm/types';
import { serializeSarif } from '@planwarden/engine/report/sarif';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient, CliError, HttpError, TERMINAL_JOB_STATUSES, TimeoutError, type AnalyzeBody, type JobView } from './api-client';
import { applyBaseline, baselineNote, baselineOf, readBaseline, writeBaseline } from './baseline';
import { formatDuration } from './duration';
import { readAnalysisInput } from './inputs';
import { startLocalServer } from './local-server';
import { evaluate, jsonDocument, locateInInput, summaryLine, type FailOn } from './outcome';
import { createProgress, type ProgressStream } from './progress';
import { terminalSafe } from './terminal-safe';

/** `planwarden analyze` options after parsing (planwarden.ts). */
export interface AnalyzeOptions {
  /** A file, or a directory (every file an analyzer claims, inputs.ts). */
  readonly file: string;
  /** Server origin; null = local mode (an in-process server on 127.0.0.1). */
  readonly server: string | null;
  readonly apiKey: string | null;
  /** Analyzer name, or `auto` for auto-routing. */
  readonly analyzer: string;
  /** The model to add on top of the checks; null = the deterministic checks only. */
  readonly model: { readonly backend: LlmBackend; readonly model: string } | null;
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
  /** A baseline file (baseline.ts) whose findings do not gate; null = none. */
  readonly baseline: string | null;
  /** Write this run's open findings as a baseline to this file; null = none. */
  readonly writeBaseline: string | null;
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

/** What one request body's analysis needs besides the body. */
interface Run {
  readonly client: ApiClient;
  readonly options: AnalyzeOptions;
  readonly io: CliIo;
  readonly namespace: string;
  readonly signal: AbortSignal;
  /** The provider key sent with the request (never printed). */
  readonly llmKey: string | null;
  readonly local: boolean;
  readonly say: (line: string) => void;
  /** What the command is waiting for, for the --timeout message. */
  waitingFor: string;
}

/** Posts one body (with the model when `withModel`) and waits for its job to end; returns the job. */
async function analyseBody(run: Run, rawInput: string, withModel: boolean): Promise<JobView> {
  const { client, options, namespace } = run;
  const model = withModel ? options.model : null;
  const body: AnalyzeBody = {
    raw_input: rawInput,
    ...(model ? { llm_backend: model.backend, model: model.model } : {}),
    ...(model && run.llmKey ? { api_key: run.llmKey } : {}),
    ...(options.ruleType && options.analyzer !== 'auto' ? { rule_type: options.ruleType } : {}),
  };
  run.waitingFor = 'the server to accept the analysis';
  let started: { job_id: string; inline: boolean };
  try {
    started = await client.analyze(options.analyzer, namespace, body);
  } catch (error) {
    const keyVariable = model ? PROVIDER_KEY_VARIABLES[model.backend] : null;
    if (run.local && keyVariable && !run.llmKey && error instanceof HttpError && / 400: No api_key/.test(error.message)) {
      throw new CliError(`${error.message} (set ${keyVariable})`);
    }
    throw error;
  }
  const jobId = started.job_id;
  run.waitingFor = `job ${jobId}`;
  return started.inline
    ? await client.job(jobId)
    : await waitForJob(client, jobId, run.io, options.pollMs, run.signal, (status) => {
        run.waitingFor = `job ${jobId} (still ${status})`;
      });
}

/**
 * Analyses one body: the checks, and the model on top when one was asked for. When the model
 * part fails (a 502 answer, or a job that failed), the failure is named on stderr and the body
 * is analysed again with the checks only, so their findings are reported and gate the run
 * (docs/decisions.md "CLI checks first"). A server that kept the failed job's check findings
 * (docs/decisions.md "Analysis layers") re-analyses nothing then; one that did not runs them now.
 * Throws CliError for anything else.
 */
async function analyseWithFallback(run: Run, rawInput: string): Promise<JobView> {
  const model = run.options.model;
  if (model) {
    let failure: string | null = null;
    try {
      const job = await analyseBody(run, rawInput, true);
      if (job.status === 'done') return job;
      if (job.status !== 'failed') throw new CliError(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
      failure = `job ${job.job_id} failed${job.error ? `: ${job.error}` : ''}`;
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 502) throw error;
      failure = error.message;
    }
    run.say(`warning: the model (${model.backend} ${model.model}) failed, ${failure}; reporting the deterministic checks' findings only`);
  }
  const job = await analyseBody(run, rawInput, false);
  if (job.status !== 'done') throw new CliError(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
  return job;
}

/**
 * `planwarden analyze PATH`: analyses a file, or every file of a directory an analyzer claims
 * (inputs.ts), into one namespace through a Planwarden server (`--server`) or an in-process one
 * (local mode): the deterministic checks, plus the model when `options.model` names one (a
 * failing model leaves the checks' findings, analyseWithFallback). Waits for the jobs with
 * progress on stderr, fetches the namespace's one report (markdown, or SARIF 2.1.0 for `sarif`
 * and `json`), marks the findings of `--baseline` as accepted, writes `--write-baseline`,
 * writes the report to `--output` or stdout and returns the exit code: 0 when no open finding
 * outside the baseline is at or above `--fail-on`, 1 when one is. Throws CliError (exit 2) for
 * an unreadable input or baseline, a refused request, an answer of the wrong shape
 * (answers.ts), a failed or cancelled checks job, or `timeoutMs` passing before the report is
 * in (naming what it waited for). Everything printed passes through terminalSafe.
 */
export async function runAnalyze(options: AnalyzeOptions, io: CliIo): Promise<number> {
  const baseline = options.baseline ? await readBaseline(resolve(io.cwd, options.baseline)) : null;
  const input = await readAnalysisInput(options.file, io.cwd, io.stderr);
  const namespace = options.namespace ?? defaultNamespace(options.file, io.now());
  const keyVariable = options.model ? PROVIDER_KEY_VARIABLES[options.model.backend] : null;
  const llmKey = options.llmKey && keyVariable ? io.env[keyVariable]?.trim() || null : null;
  const say = (line: string) => {
    io.stderr.write(`${terminalSafe(line, 'line')}\n`);
  };
  if (input.claimed) {
    const counts = Object.entries(input.claimed).map(([analyzer, n]) => `${analyzer} ${n}`);
    say(`${options.file}: ${Object.values(input.claimed).reduce((a, b) => a + b, 0)} file(s) to analyse (${counts.join(', ')})`);
  }
  const local = options.server ? null : await startLocalServer({ dataDir: options.dataDir, env: io.env, model: options.model });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const client = local ? new ApiClient(local.url, local.apiKey, deadline.signal) : new ApiClient(options.server!, options.apiKey, deadline.signal);
  const run: Run = { client, options, io, namespace, signal: deadline.signal, llmKey, local: local !== null, say, waitingFor: '' };
  try {
    const what = options.model ? `checks and ${options.model.backend} ${options.model.model}` : 'checks only';
    say(`analysing ${options.file} in namespace ${namespace} (${local ? 'local engine' : options.server}; ${what})`);
    let last: JobView | null = null;
    let units = 0;
    for (const body of input.bodies) {
      last = await analyseWithFallback(run, body);
      units += last.processed_count ?? last.resource_count ?? 0;
      if (last.quota_exceeded) say('warning: the monthly spend cap stopped the run; the report is partial');
    }
    say(`job ${last!.job_id} done: ${units} unit(s) analysed`);

    run.waitingFor = `the report of job ${last!.job_id}`;
    const log = await client.sarifReport(namespace);
    if (input.located) locateInInput(log, input.located);
    const marked = baseline ? applyBaseline(log, baseline, options.baseline!) : 0;
    const outcome = evaluate(log, options.failOn);
    if (options.writeBaseline) {
      const written = baselineOf(outcome.findings);
      await writeBaseline(resolve(io.cwd, options.writeBaseline), written);
      say(`baseline written to ${options.writeBaseline}: ${written.findings.length} finding(s)`);
    }
    const document = terminalSafe(
      options.format === 'sarif'
        ? serializeSarif(log)
        : options.format === 'json'
          ? `${JSON.stringify(jsonDocument(log, outcome, { namespace, job_id: last!.job_id, fail_on: options.failOn }), null, 2)}\n`
          : `${await client.markdownReport(namespace)}${marked > 0 ? baselineNote(marked, options.baseline!) : ''}`,
    );
    if (options.output) {
      await writeFile(resolve(io.cwd, options.output), document).catch((error: NodeJS.ErrnoException) => {
        throw new CliError(`cannot write ${options.output}: ${error.code ?? error.message}`);
      });
      say(`report written to ${options.output}`);
    } else {
      io.stdout.write(document);
    }
    if (marked > 0) say(`${marked} finding(s) accepted in the baseline ${options.baseline} are not counted`);
    say(summaryLine(outcome, options.failOn));
    return outcome.blocking > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof TimeoutError) throw new CliError(`timed out after ${formatDuration(options.timeoutMs)} (--timeout) waiting for ${run.waitingFor}`);
    throw error;
  } finally {
    clearTimeout(timer);
    await local?.close();
  }
}
