import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { LLM_BACKENDS, type LlmBackend } from '@planwarden/engine/llm/types';
import type { AnalyzeOptions, CliIo } from './analyze';
import { CliError } from './errors';
import { parseDuration } from './duration';
import { FAIL_ON_VALUES, type FailOn } from './outcome';
import { terminalSafe } from './terminal-safe';

/**
 * The `planwarden` command (server/bin/planwarden.js runs `main`): `planwarden analyze FILE|DIR ...`
 * for pipelines: the deterministic checks, plus a model with `--backend`/`--model`. Exit codes: 0 nothing open at or above --fail-on, 1 something is,
 * 2 usage, input or service errors, an answer the command cannot read, or --timeout passed
 * (one message line on stderr). docs/ci.md.
 */

const FORMATS = ['markdown', 'json', 'sarif'] as const;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new InvalidArgumentError('must be a whole number of seconds, or one with a unit: 500ms, 90s, 10m, 1h (at most 24h)');
  return ms;
}

interface RawOptions {
  server?: string;
  apiKey?: string;
  analyzer: string;
  backend?: LlmBackend;
  model?: string;
  ruleType?: string;
  namespace?: string;
  format: AnalyzeOptions['format'];
  output?: string;
  failOn: FailOn;
  dataDir?: string;
  llmKey: boolean;
  pollInterval: number;
  timeout: number;
  baseline?: string;
  writeBaseline?: string;
}

/** The model of `--backend`/`--model` (both or neither); null = checks only. */
function modelOf(raw: RawOptions): AnalyzeOptions['model'] {
  if (raw.backend && raw.model) return { backend: raw.backend, model: raw.model };
  if (raw.backend || raw.model) throw new CliError('--backend and --model go together: give both to add a model to the checks, or neither for the checks only');
  return null;
}

function buildProgram(io: CliIo, done: (code: number) => void): Command {
  const program = new Command('planwarden')
    .description('Security analysis for infrastructure-as-code: Terraform plans and pull-request diffs.')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(terminalSafe(s)),
      writeErr: (s) => io.stderr.write(terminalSafe(s)),
    });
  program
    .command('analyze')
    .description(
      'Analyse a plan, diff, file or directory with the deterministic checks (and a model with --backend/--model) and report the findings (exit 1 when findings at or above --fail-on are open).',
    )
    .argument('<path>', 'terraform show -json output, a plan text, a unified diff, a single file, or a directory (every file an analyzer reads)')
    .addOption(new Option('--server <url>', 'Planwarden server to use (default: run the engine locally)'))
    .addOption(new Option('--api-key <key>', 'API key for --server (default: $PLANWARDEN_API_KEY)'))
    .addOption(new Option('--analyzer <name>', 'analyzer name, or auto to route by content').default('auto'))
    .addOption(new Option('--backend <backend>', 'LLM backend to add to the checks (with --model; default: checks only)').choices(LLM_BACKENDS))
    .addOption(new Option('--model <model>', "LLM model (with --backend; on the server's allowed-models catalogue)"))
    .addOption(new Option('--rule-type <variant>', 'rule variant for an explicit --analyzer (e.g. aws)'))
    .addOption(new Option('--namespace <ns>', 'namespace to analyse into (default: a new one per run)'))
    .addOption(new Option('--format <format>', 'report format').choices(FORMATS).default('markdown'))
    .addOption(new Option('--output <file>', 'write the report to this file instead of stdout'))
    .addOption(new Option('--fail-on <severity>', 'exit 1 when an open finding is at or above this severity').choices(FAIL_ON_VALUES).default('high'))
    .addOption(new Option('--baseline <file>', 'findings accepted in this baseline file do not fail the run'))
    .addOption(new Option('--write-baseline <file>', "write this run's open findings to a baseline file"))
    .addOption(new Option('--data-dir <dir>', "local mode: keep the engine's data here (default: a throwaway directory)"))
    .addOption(new Option('--no-llm-key', 'do not send OPENAI_API_KEY / ANTHROPIC_API_KEY; the server uses its stored credential'))
    .addOption(
      new Option('--timeout <duration>', 'give up (exit 2) when the report is not in after this long: seconds, or 500ms / 90s / 10m / 1h')
        .argParser(duration)
        .default(30 * 60_000, '30m'),
    )
    .addOption(new Option('--poll-interval <ms>', 'job polling interval').argParser(positiveInt).default(1000).hideHelp())
    .action(async (file: string, raw: RawOptions) => {
      if (raw.server && raw.dataDir) throw new CliError('--data-dir is for local mode; it cannot be combined with --server');
      const model = modelOf(raw);
      // Loaded here: `--help` and usage errors never load the engine.
      const { runAnalyze } = await import('./analyze');
      done(
        await runAnalyze(
          {
            file,
            server: raw.server ?? null,
            apiKey: raw.apiKey ?? (io.env.PLANWARDEN_API_KEY?.trim() || null),
            analyzer: raw.analyzer,
            model,
            ruleType: raw.ruleType ?? null,
            namespace: raw.namespace ?? null,
            format: raw.format,
            output: raw.output ?? null,
            failOn: raw.failOn,
            dataDir: raw.dataDir ?? null,
            llmKey: raw.llmKey,
            pollMs: raw.pollInterval,
            timeoutMs: raw.timeout,
            baseline: raw.baseline ?? null,
            writeBaseline: raw.writeBaseline ?? null,
          },
          io,
        ),
      );
    });
  return program;
}

/**
 * Runs the command line `argv` (without node and script) and resolves to the exit code; writes
 * reports to `io.stdout`, progress and errors to `io.stderr`, all through terminalSafe. Never
 * throws: usage errors and CliErrors become 2 with their message, anything unexpected 2 with
 * its message.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2; // commander printed the message
    io.stderr.write(`planwarden: ${terminalSafe((error as Error).message, 'line')}\n`);
    return 2;
  }
}
