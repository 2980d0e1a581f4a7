/**
 * The container image (Dockerfile, .dockerignore, scripts/container-smoke.sh), read without a
 * container runtime: it builds the dashboard and the server bundle in a build stage, and its
 * runtime stage carries exactly what `npm start` runs (server/scripts/start.mjs → the bundle,
 * its worker entries, resources/ and the dashboard at the paths the bundle resolves), as a
 * non-root user with node as PID 1. Our own Dockerfile checks find nothing above LOW in it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative as relativePath } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVER_DIST, SERVER_MAIN } from '../../server/scripts/build.mjs';
import { DASHBOARD_DIST } from '../../server/src/http/dashboard';
import { aboveLow, planwardenChecks, REPO } from './manifests';

const DOCKERFILE = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
/** Instructions with continuation lines joined, comments dropped. */
const instructions = DOCKERFILE.replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l !== '' && !l.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => {
  if (/^FROM\s/i.test(line)) all.push([]);
  all[all.length - 1]?.push(line);
  return all;
}, []);
const runtime = stages[stages.length - 1];
const rel = (path: string) => relativePath(REPO, path);

describe('Dockerfile', () => {
  it('fetches no BuildKit frontend image (no syntax directive)', () => {
    expect(DOCKERFILE).not.toMatch(/^#\s*syntax\s*=/im);
  });

  it('builds the dashboard and the server bundle in a build stage', () => {
    const build = stages.slice(0, -1).flat().join('\n');
    expect(build).toMatch(/npm ci\b/);
    expect(build).toMatch(/npm run build:web/);
    expect(build).toMatch(/npm run build:server/);
    expect(stages.length).toBeGreaterThanOrEqual(2);
  });

  it('the runtime stage holds production dependencies and the built output at the paths the bundle resolves', () => {
    const copies = runtime.filter((l) => l.startsWith('COPY'));
    expect(copies.every((l) => l.startsWith('COPY --from='))).toBe(true);
    const deps = stages.find((s) => s[0].includes(copies.find((l) => l.includes('node_modules'))?.match(/--from=(\S+)/)?.[1] ?? '?')) ?? [];
    expect(deps.join('\n')).toMatch(/npm ci --omit=dev/);
    const copied = copies.map((l) => l.split(/\s+/).at(-1) as string);
    // start.mjs runs SERVER_MAIN; build.mjs writes the worker bodies and copies their thread
    // entries into the same folder, which is copied whole.
    expect(copied).toContain(rel(SERVER_DIST));
    expect(copied).toContain(rel(DASHBOARD_DIST));
    // The bundle finds resources/ three folders above itself (build.mjs __PLANWARDEN_RESOURCES_DIR__).
    expect(copied).toContain(rel(join(SERVER_DIST, '../../../resources')));
    // "type": "module" for the bundle's .js files.
    expect(copied).toContain('server/package.json');
    expect(copied.some((p) => /src$/.test(p))).toBe(false);
  });

  it('runs node directly on the bundle, as a numeric non-root user, with /data and a /health check', () => {
    const cmd = runtime.find((l) => l.startsWith('CMD')) as string;
    const argv = JSON.parse(cmd.slice(3)) as string[];
    expect(argv[0]).toBe('node');
    expect(argv.at(-1)).toBe(rel(SERVER_MAIN));
    expect(runtime.some((l) => l.startsWith('ENTRYPOINT'))).toBe(false);
    const user = runtime.filter((l) => l.startsWith('USER')).at(-1) as string;
    expect(user).toMatch(/^USER [1-9]\d*(:[1-9]\d*)?$/);
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime.find((l) => l.startsWith('HEALTHCHECK'))).toMatch(/CMD \[.*\/health/);
  });

  it('our own Dockerfile checks find nothing above LOW, and do find a weakened copy', () => {
    expect(aboveLow(planwardenChecks('dockerfile', 'Dockerfile', DOCKERFILE))).toEqual([]);
    const weakened = DOCKERFILE.replace(/^USER .*$/m, 'USER root').replace(/^FROM node:20-bookworm-slim AS build$/m, 'FROM node AS build');
    const found = aboveLow(planwardenChecks('dockerfile', 'Dockerfile', weakened)).map((f) => f.ruleId);
    expect(found).toEqual(expect.arrayContaining(['DOCKER-ROOT-USER', 'DOCKER-UNPINNED-BASE-IMAGE']));
  });
});

describe('.dockerignore', () => {
  const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps secrets, installed modules and old build output out of the context, and the sources in', () => {
    for (const entry of ['.git', '**/node_modules', '**/dist', '.env', '.env.*']) expect(ignored).toContain(entry);
    for (const needed of ['engine', 'server', 'apps/web', 'resources', 'package-lock.json', 'tsconfig.json']) {
      expect(ignored.filter((p) => p === needed || p === `${needed}/`)).toEqual([]);
    }
    expect(ignored).toContain('!apps/desktop/package.json');
  });
});

describe('scripts/container-smoke.sh', () => {
  it('skips with a message and exit 0 when neither docker nor podman can run a container', () => {
    const bin = mkdtempSync(join(tmpdir(), 'planwarden-no-runtime-'));
    try {
      // Clients that are installed but reach no daemon, shadowing any real ones.
      for (const name of ['docker', 'podman']) {
        writeFileSync(join(bin, name), '#!/bin/sh\necho "Cannot connect to the daemon" >&2\nexit 1\n');
        chmodSync(join(bin, name), 0o755);
      }
      const run = spawnSync('bash', [join(REPO, 'scripts/container-smoke.sh')], {
        env: { PATH: `${bin}:${process.env.PATH}` },
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('skipped: no docker or podman');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
