import type * as Sarif from 'sarif';
import { createAnalyzerRegistry } from '@planwarden/engine/analyzers/registry';
import { AppError } from '@planwarden/engine/core/errors';
import { ChecksOnlyRun } from '@planwarden/engine/report/checks-only';
import { HttpError } from './errors';
import type { JobView } from './answers';
import { DEFAULT_MAX_INPUT_SIZE_MB } from '../config/input-limit';

/**
 * The checks-only local mode (docs/ci.md): `planwarden analyze PATH` with no `--server`, no model
 * and no `--data-dir` runs the engine's checks in this process (report/checks-only.ts): the
 * ingest, checks and reports of the server's endpoints (analysis-api.md "Server-side analysis",
 * "Reports and report links") with no HTTP server, no store, no job runner and no ingest
 * threads, so nothing outlives the work. Findings, Markdown and SARIF are the local server's.
 */

/** The in-process engine of one command run, on one namespace. */
export interface InProcessEngine {
  /** POST …/analyze with no model: ingests and runs the checks; the finished job. */
  analyse(rawInput: string): Promise<JobView>;
  /** GET /{namespace}/report?format=sarif: the log as the command reads it from a server. */
  sarifReport(): Promise<Sarif.Log>;
  /** GET /{namespace}/report?format=markdown: the report document. */
  markdownReport(): Promise<string>;
}

/**
 * An engine refusal the server would have answered with its status: the same HttpError the
 * command gets over HTTP (`<request> answered <status>: <detail>`), so its handling and message do
 * not depend on the mode. Other errors pass unchanged.
 */
function answered<T>(request: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    if (error instanceof AppError) throw new HttpError(`${request} answered ${error.status}: ${error.message}`, error.status);
    throw error;
  }
}

/**
 * Opens the engine for `namespace` with the local server's input limit (it takes no server
 * setting from the environment: local-server.ts). `analyzer` is a name or `auto`; `ruleType`
 * applies to a named analyzer only; `markdown`: the Markdown report will be asked for, so its
 * renderer starts loading now, while the checks run (it loads on first use otherwise).
 */
export function openInProcessEngine(options: { namespace: string; analyzer: string; ruleType: string | null; markdown?: boolean }): InProcessEngine {
  const { namespace } = options;
  let builtins: Promise<typeof import('@planwarden/engine/report/compiled-builtins')> | null = null;
  const loadBuiltins = () => (builtins ??= import('@planwarden/engine/report/compiled-builtins'));
  // Marked handled: a run that fails before its report must not also fail on this load.
  if (options.markdown) loadBuiltins().catch(() => undefined);
  const run = new ChecksOnlyRun(createAnalyzerRegistry(), namespace, DEFAULT_MAX_INPUT_SIZE_MB * 1024 * 1024);
  const auto = options.analyzer === 'auto';
  const analysePath = auto
    ? `/${encodeURIComponent(namespace)}/analyze/auto`
    : `/${encodeURIComponent(options.analyzer)}/${encodeURIComponent(namespace)}/analyze`;
  const reportPath = `/${encodeURIComponent(namespace)}/report`;
  return {
    analyse: async (rawInput) => ({ ...answered(`POST ${analysePath}`, () => run.analyse(auto ? null : options.analyzer, rawInput, options.ruleType)) }),
    // The log itself, not its serialised form read back as over HTTP (a pretty-printed 390 KB for
    // 100 resources): it is plain data, a fresh object per call, and what reads it (outcome.ts,
    // baseline.ts, serializeSarif) takes an undefined member as the absent one JSON would give.
    sarifReport: async () => answered(`GET ${reportPath}`, () => run.sarif()),
    async markdownReport() {
      const model = answered(`GET ${reportPath}`, () => run.reportModel());
      // The built-in template as compiled TypeScript, as the server renders it (report/render.ts
      // renderReport); LiquidJS loads only when the loaded template is not the one it mirrors.
      // A command has no other requests to share its event loop with: no render slices.
      const { compiledBuiltin } = await loadBuiltins();
      const compiled = compiledBuiltin('markdown');
      if (compiled) return compiled(model);
      const { renderBuiltinWithLiquid } = await import('@planwarden/engine/report/render');
      return renderBuiltinWithLiquid(model, 'markdown');
    },
  };
}
