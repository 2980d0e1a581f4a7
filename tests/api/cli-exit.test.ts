import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../helpers/cli';

/**
 * The `planwarden` process ends with its answer when the command is refused after its
 * `--timeout` timer has started (docs/ci.md: nothing outlives the work): a `--server` URL that
 * is not http(s) is exit 2 with the reason, and the process does not wait out the timeout.
 */

const SAMPLE_PLAN = 'resources/examples/azure-firewall-plan.json';
/** Through the real bin (it may rebuild the compiled command first); a process waiting out `--timeout 1h` fails by this. */
const CHILD = { timeout: 180_000 };

let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'planwarden-cli-exit-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('planwarden analyze --server with a URL it refuses (child process)', CHILD, () => {
  it('exits 2 with the reason, without waiting for --timeout', async () => {
    const run = await runBin(['analyze', SAMPLE_PLAN, '--server', 'ftp://example.invalid', '--timeout', '1h'], home);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/--server must be an http\(s\) URL/);
  });
});
