import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from '../../server/src/cli/planwarden';

/** Running the `planwarden` command from tests: as a child process through its bin, or `main` in-process. */

export const REPO = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(REPO, 'server/bin/planwarden.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the bin as a child process in the repository root (stdout/stderr are pipes, not terminals); HOME = `home`. */
export function runBin(args: string[], home: string, env: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      {
        cwd: REPO,
        env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

/** Runs `main` in this process with piped streams; `tty` makes stderr claim to be a terminal (progress bar). */
export async function runMain(args: string[], env: Record<string, string> = {}, options: { tty?: boolean } = {}): Promise<CliRun> {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), options.tty ? { isTTY: true, columns: 120 } : {});
  const out: string[] = [];
  const err: string[] = [];
  stdout.on('data', (c: Buffer) => out.push(c.toString()));
  stderr.on('data', (c: Buffer) => err.push(c.toString()));
  const code = await main(args, { stdout, stderr, env, cwd: REPO, now: () => new Date() });
  return { code, stdout: out.join(''), stderr: err.join('') };
}
