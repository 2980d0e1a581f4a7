import { Presets, SingleBar } from 'cli-progress';
import { terminalSafe } from './terminal-safe';

/** Progress of one analysis job as the command shows it on stderr. */
export interface Progress {
  /** A line of its own (job queued, finished, warnings). */
  note(message: string): void;
  /** Units analysed so far of `total`; `current` = the address most recently completed. */
  update(processed: number, total: number, current: string | null): void;
  /** Ends the bar (if any). */
  stop(): void;
}

/** Where progress goes: a stream, with `isTTY` when it is a terminal. */
export interface ProgressStream extends NodeJS.WritableStream {
  readonly isTTY?: boolean;
}

/** How progress names its work: the bar's label, what it counts, and the verb of a plain line. */
export interface ProgressWords {
  readonly label: string;
  readonly noun: string;
  readonly verb: string;
}

const UNITS: ProgressWords = { label: 'Analysing', noun: 'units', verb: 'analysed' };

/**
 * A cli-progress bar when `stream` is a terminal; otherwise plain lines, one per change
 * (`progress: 3/10 units analysed (aws_s3_bucket.logs)`, or in `words`: `3/10 files read`),
 * which CI logs keep readable.
 * Notes and resource addresses come from the server: both pass through terminalSafe as one
 * line (the bar's own cursor sequences are written by cli-progress, after that).
 */
export function createProgress(stream: ProgressStream, words: ProgressWords = UNITS): Progress {
  const shown = stream.isTTY ? terminalProgress(stream, words) : lineProgress(stream, words);
  return {
    note: (message) => shown.note(terminalSafe(message, 'line')),
    update: (processed, total, current) => shown.update(processed, total, current === null ? null : terminalSafe(current, 'line')),
    stop: () => shown.stop(),
  };
}

function lineProgress(stream: ProgressStream, words: ProgressWords): Progress {
  let last = '';
  return {
    note: (message) => {
      stream.write(`${message}\n`);
    },
    update(processed, total, current) {
      const key = `${processed}/${total}`;
      if (key === last) return;
      last = key;
      stream.write(`progress: ${processed}/${total} ${words.noun} ${words.verb}${current ? ` (${current})` : ''}\n`);
    },
    stop() {},
  };
}

function terminalProgress(stream: ProgressStream, words: ProgressWords): Progress {
  const bar = new SingleBar(
    {
      stream,
      format: `${words.label} [{bar}] {value}/{total} ${words.noun} {resource}`,
      hideCursor: true,
      clearOnComplete: false,
    },
    Presets.shades_classic,
  );
  let started = false;
  return {
    note(message) {
      if (started) bar.stop();
      started = false;
      stream.write(`${message}\n`);
    },
    update(processed, total, current) {
      if (!started) {
        bar.start(total, processed, { resource: '' });
        started = true;
      }
      bar.setTotal(total);
      bar.update(processed, { resource: current ?? '' });
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
