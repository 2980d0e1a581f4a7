import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { LlmBackend } from '@planwarden/engine/llm/types';
import { serializeSarif } from '@planwarden/engine/report/sarif';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as Sarif from 'sarif';
import type { AnalyzeBody, ApiClient, JobView } from './api-client';
import { CliError, HttpError, TimeoutError } from './errors';
import { formatDuration } from './duration';
import type { InProcessEngine } from './in-process';
import { readAnalysisInput } from './inputs';
import { evaluate, jsonDocument, locateInInput, summaryLine, type FailOn } from './outcome';
import { createProgress, type ProgressStream } from './progress';
import { terminalSafe } from './terminal-safe';

/** `planwarden analyze` options after parsing (planwarden.ts). */
export interface AnalyzeOptions {
  /** A file, or a directory (every file an analyzer claims, inputs.ts). */
  readonly file: string;
  /**
   * Server origin; null = local mode: the engine in this process for the checks only
   * (in-process.ts), an in-process server on 127.0.0.1 with a model or a `dataDir`.
   */
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
      if (client.isTerminal(job)) return job;
      await pause(pollMs, signal);
    }
  } finally {
    progress.stop();
  }
}

/** What the command is waiting for (set before each step), for the --timeout message. */
interface Waiting {
  waitingFor: string;
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
  readonly waiting: Waiting;
}

/**
 * Posts one body (with the model when `withModel`) and waits for its job to end; returns the job.
 * `continueRun`: the body adds to the namespace's current run (a directory's later batches, the
 * checks-only fallback) instead of starting a new one, so the report covers the whole command.
 */
async function analyseBody(run: Run, rawInput: string, withModel: boolean, continueRun: boolean): Promise<JobView> {
  const { client, options, namespace } = run;
  const model = withModel ? options.model : null;
  const body: AnalyzeBody = {
    raw_input: rawInput,
    ...(model ? { llm_backend: model.backend, model: model.model } : {}),
    ...(model && run.llmKey ? { api_key: run.llmKey } : {}),
    ...(options.ruleType && options.analyzer !== 'auto' ? { rule_type: options.ruleType } : {}),
    ...(continueRun ? { continue_run: true } : {}),
  };
  run.waiting.waitingFor = 'the server to accept the analysis';
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
  run.waiting.waitingFor = `job ${jobId}`;
  return started.inline
    ? await client.job(jobId)
    : await waitForJob(client, jobId, run.io, options.pollMs, run.signal, (status) => {
        run.waiting.waitingFor = `job ${jobId} (still ${status})`;
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
async function analyseWithFallback(run: Run, rawInput: string, continueRun: boolean): Promise<JobView> {
  const model = run.options.model;
  if (model) {
    let failure: string | null = null;
    try {
      const job = await analyseBody(run, rawInput, true, continueRun);
      if (job.status === 'done') return job;
      if (job.status !== 'failed') throw new CliError(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
      failure = `job ${job.job_id} failed${job.error ? `: ${job.error}` : ''}`;
    } catch (error) {
      if (!(error instanceof HttpError) || error.status !== 502) throw error;
      failure = error.message;
    }
    run.say(`warning: the model (${model.backend} ${model.model}) failed, ${failure}; reporting the deterministic checks' findings only`);
  }
  // The model's attempt already recorded this body as a run (when it got that far): join it.
  const job = await analyseBody(run, rawInput, false, continueRun || Boolean(model));
  if (job.status !== 'done') throw new CliError(`job ${job.job_id} ${job.status}${job.error ? `: ${job.error}` : ''}`);
  return job;
}

/** Where the bodies are analysed and the report is read: a server (HTTP) or the engine in this process. */
interface Session {
  /** For the `analysing …` line: `local engine` or the server's URL. */
  readonly where: string;
  /**
   * Analyses one body (the checks, and the model when asked for); resolves to its finished job.
   * `continueRun`: a later body of the same command, recorded in the run the first one started.
   */
  analyse(rawInput: string, continueRun: boolean): Promise<JobView>;
  /** The namespace's SARIF log, as the command reads it from a server. */
  sarifReport(): Promise<Sarif.Log>;
  /** The namespace's Markdown report. */
  markdownReport(): Promise<string>;
}

/** A session over the API of `client` (the given server, or the local one). */
function httpSession(run: Run, where: string): Session {
  return {
    where,
    analyse: (rawInput, continueRun) => analyseWithFallback(run, rawInput, continueRun),
    sarifReport: () => run.client.sarifReport(run.namespace),
    markdownReport: () => run.client.markdownReport(run.namespace),
  };
}

/**
 * A session on the in-process engine (checks only). The work runs on this thread, so the
 * --timeout is looked at between the steps: a step in progress finishes first.
 */
function inProcessSession(engine: InProcessEngine, signal: AbortSignal, waiting: Waiting): Session {
  const checked = async <T>(what: string, step: () => Promise<T>): Promise<T> => {
    waiting.waitingFor = what;
    if (signal.aborted) throw new TimeoutError(what);
    const value = await step();
    if (signal.aborted) throw new TimeoutError(what);
    return value;
  };
  return {
    where: 'local engine',
    analyse: (rawInput) => checked('the checks', () => engine.analyse(rawInput)),
    sarifReport: () => checked('the report', () => engine.sarifReport()),
    markdownReport: () => checked('the report', () => engine.markdownReport()),
  };
}

/**
 * `planwarden analyze PATH`: analyses a file, or every file of a directory an analyzer claims
 * (inputs.ts), into one namespace through a Planwarden server (`--server`), the engine in this
 * process (local mode, checks only: in-process.ts) or an in-process server (local mode with a
 * model or `--data-dir`): the deterministic checks, plus the model when `options.model` names
 * one (a failing model leaves the checks' findings, analyseWithFallback). Waits for the jobs
 * with progress on stderr, fetches the namespace's one report (markdown, or SARIF 2.1.0 for
 * `sarif` and `json`), marks the findings of `--baseline` as accepted, writes
 * `--write-baseline`, writes the report to `--output` or stdout and returns the exit code: 0
 * when no open finding outside the baseline is at or above `--fail-on`, 1 when one is. Throws
 * CliError (exit 2) for an unreadable input or baseline, a refused request, an answer of the
 * wrong shape (answers.ts), a failed or cancelled checks job, or `timeoutMs` passing before the
 * report is in (naming what it waited for). Everything printed passes through terminalSafe.
 */
export async function runAnalyze(options: AnalyzeOptions, io: CliIo): Promise<number> {
  // Loaded on use, as the API client below: a checks-only run never loads zod (answers.ts).
  const baselines = options.baseline || options.writeBaseline ? await import('./baseline') : null;
  const baseline = options.baseline ? await baselines!.readBaseline(resolve(io.cwd, options.baseline)) : null;
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
  // Loaded on use: the checks-only run never loads the server (Express, the job runner, the MCP endpoint).
  const inProcess = !options.server && !options.model && !options.dataDir;
  const engine = inProcess
    ? (await import('./in-process')).openInProcessEngine({
        namespace,
        analyzer: options.analyzer,
        ruleType: options.ruleType,
        markdown: options.format === 'markdown',
      })
    : null;
  const local =
    options.server || engine ? null : await (await import('./local-server')).startLocalServer({ dataDir: options.dataDir, env: io.env, model: options.model });
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  const waiting: Waiting = { waitingFor: '' };
  let failed = false;
  try {
    // Inside the try: a refused --server URL still clears the timer, so the process ends.
    let session: Session;
    if (engine) {
      session = inProcessSession(engine, deadline.signal, waiting);
    } else {
      // The API client and its answer schemas (zod) load only for a server.
      const { ApiClient } = await import('./api-client');
      const client = local ? new ApiClient(local.url, local.apiKey, deadline.signal) : new ApiClient(options.server!, options.apiKey, deadline.signal);
      const run: Run = { client, options, io, namespace, signal: deadline.signal, llmKey, local: local !== null, say, waiting };
      session = httpSession(run, local ? 'local engine' : options.server!);
    }
    const what = options.model ? `checks and ${options.model.backend} ${options.model.model}` : 'checks only';
    say(`analysing ${options.file} in namespace ${namespace} (${session.where}; ${what})`);
    let last: JobView | null = null;
    let units = 0;
    for (const [index, body] of input.bodies.entries()) {
      last = await session.analyse(body, index > 0);
      units += last.processed_count ?? last.resource_count ?? 0;
      if (last.quota_exceeded) say('warning: the monthly spend cap stopped the run; the report is partial');
    }
    say(`job ${last!.job_id} done: ${units} unit(s) analysed`);

    waiting.waitingFor = `the report of job ${last!.job_id}`;
    const log = await session.sarifReport();
    if (input.located) locateInInput(log, input.located);
    const marked = baseline ? baselines!.applyBaseline(log, baseline, options.baseline!) : 0;
    const outcome = evaluate(log, options.failOn);
    if (options.writeBaseline) {
      const written = baselines!.baselineOf(outcome.findings);
      await baselines!.writeBaseline(resolve(io.cwd, options.writeBaseline), written);
      say(`baseline written to ${options.writeBaseline}: ${written.findings.length} finding(s)`);
    }
    const document = terminalSafe(
      options.format === 'sarif'
        ? serializeSarif(log)
        : options.format === 'json'
          ? `${JSON.stringify(jsonDocument(log, outcome, { namespace, job_id: last!.job_id, fail_on: options.failOn }), null, 2)}\n`
          : `${await session.markdownReport()}${marked > 0 ? baselines!.baselineNote(marked, options.baseline!) : ''}`,
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
    failed = true;
    if (error instanceof TimeoutError) throw new CliError(`timed out after ${formatDuration(options.timeoutMs)} (--timeout) waiting for ${waiting.waitingFor}`);
    throw error;
  } finally {
    clearTimeout(timer);
    // After a failed run the run's own error is what the user must see, not a failure to stop the local engine.
    await local?.close().catch((closeError: unknown) => {
      if (!failed) throw closeError;
    });
  }
}
