import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { logStartBanner } from '../../server/src/banner';
import { loadConfig } from '../../server/src/config/config';
import { createLogger } from '../../server/src/logging';

const ROOT = resolve(__dirname, '../..');
const BOOTSTRAP_KEY = 'bootstrap-key-must-not-be-logged';
const QUERY_KEY = 'query-key-must-not-be-logged';
const COOKIE = 'cookie-value-must-not-be-logged';
const BEARER = 'bearer-token-must-not-be-logged';
const INVITE_TOKEN = 'invite-token-must-not-be-logged';

type Line = Record<string, unknown> & { msg: string; level: number };

/** `npm start` (tsx server/src/main.ts) in a child process; stdout collected line by line. */
class ServerProcess {
  readonly child: ChildProcess;
  readonly lines: string[] = [];
  #partial = '';
  constructor(env: Record<string, string>, cwd: string) {
    this.child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'server/src/main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, PLANWARDEN_CONFIG: join(cwd, 'none.json'), ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      const parts = (this.#partial + chunk).split('\n');
      this.#partial = parts.pop()!;
      this.lines.push(...parts);
    });
  }

  /** Resolves with the first line satisfying `test` (polls the collected output; bounded). */
  async waitFor(test: (line: string) => boolean, what: string): Promise<string> {
    for (let i = 0; i < 1200; i += 1) {
      const found = this.lines.find(test);
      if (found) return found;
      if (this.child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`no log line for ${what}; got:\n${this.lines.join('\n')}`);
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((r) => this.child.once('exit', (code) => r(code)));
    this.child.kill('SIGTERM');
    return exited;
  }
}

describe('logs of the real server (npm start, logging.format json)', () => {
  let dir: string;
  let server: ServerProcess;
  let url: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'planwarden-logs-'));
    server = new ServerProcess(
      {
        PLANWARDEN_HOST: '127.0.0.1',
        PLANWARDEN_PORT: '0',
        PLANWARDEN_DATA_DIR: join(dir, 'data'),
        PLANWARDEN_LOGGING_FORMAT: 'json',
        PLANWARDEN_LOGGING_LEVEL: 'info',
        PLANWARDEN_AUTH_API_KEY: BOOTSTRAP_KEY,
      },
      dir,
    );
    const banner = JSON.parse(await server.waitFor((l) => l.includes('listening on'), 'the banner')) as Line;
    url = String(banner.url);
    await fetch(`${url}/api/v1/jobs?api_key=${QUERY_KEY}`, { headers: { 'X-Request-ID': 'log-test-query-key' } });
    await fetch(`${url}/api/v1/auth/me`, {
      headers: { 'X-Request-ID': 'log-test-headers', 'X-API-Key': BOOTSTRAP_KEY, Authorization: `Bearer ${BEARER}`, Cookie: `mcp_session=${COOKIE}` },
    });
    await fetch(`${url}/api/v1/invite/${INVITE_TOKEN}`, { headers: { 'X-Request-ID': 'log-test-invite' } });
    await server.waitFor((l) => l.includes('log-test-invite'), 'the last request');
  }, 90_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes one JSON object per line', () => {
    expect(server.lines.length).toBeGreaterThan(5);
    for (const line of server.lines) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it('opens with a banner naming the URL, the storage and the auth mode', () => {
    const messages = server.lines.map((l) => (JSON.parse(l) as Line).msg);
    expect(messages).toContain(`Planwarden 0.1.0 listening on ${url}`);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(messages).toContain(`Storage: sqlite at ${join(dir, 'data', 'planwarden.sqlite')}`);
    expect(messages.find((m) => m.startsWith('Auth: '))).toMatch(/^Auth: bootstrap key /);
    expect(messages.some((m) => m.startsWith('Anonymous mode'))).toBe(false); // not anonymous, and loopback
  });

  it('logs each request at info with its request id, method, path, status and duration', () => {
    const line = JSON.parse(server.lines.find((l) => l.includes('"log-test-headers"'))!) as Line;
    expect(line).toMatchObject({
      level: 30,
      request_id: 'log-test-headers',
      method: 'GET',
      path: '/api/v1/auth/me',
      msg: expect.stringMatching(/^GET \/api\/v1\/auth\/me \d{3} [\d.]+ms$/),
    });
    expect(typeof line.status).toBe('number');
    expect(typeof line.duration_ms).toBe('number');
    const query = JSON.parse(server.lines.find((l) => l.includes('"log-test-query-key"'))!) as Line;
    expect(query.path).toBe('/api/v1/jobs');
  });

  it('never logs a credential: query api_key, X-API-Key, Authorization, cookie, invitation token', () => {
    const all = server.lines.join('\n');
    for (const secret of [BOOTSTRAP_KEY, QUERY_KEY, COOKIE, BEARER, INVITE_TOKEN]) expect(all).not.toContain(secret);
    const invite = JSON.parse(server.lines.find((l) => l.includes('"log-test-invite"'))!) as Line;
    expect(invite.path).toBe('/api/v1/invite/***');
  });

  it('logs the shutdown and exits 0 on SIGTERM', async () => {
    expect(await server.stop()).toBe(0);
    expect(server.lines.some((l) => (JSON.parse(l) as Line).msg === 'Received SIGTERM: shutting down')).toBe(true);
  });
});

describe('start banner and pretty format', () => {
  /** A logger of `format` writing into an array of lines. */
  function captured(format: 'json' | 'pretty') {
    const out: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        out.push(...String(chunk).split('\n').filter(Boolean));
        done();
      },
    });
    return { out, log: createLogger({ logging: { level: 'info', format } }, sink) };
  }
  const config = (overrides: Record<string, unknown>) => loadConfig({ env: {}, cwd: '/nonexistent', overrides });

  it('warns in anonymous mode on a non-loopback address, and only then', () => {
    const exposed = captured('json');
    logStartBanner(exposed.log, config({ server: { host: '0.0.0.0' }, storage: { backend: 'memory' } }), 'http://0.0.0.0:8000');
    const warning = exposed.out.map((l) => JSON.parse(l) as Line).find((l) => l.level === 40);
    expect(warning?.msg).toMatch(/^Anonymous mode on non-loopback address 0\.0\.0\.0: anyone who can reach this port has full access/);
    expect(exposed.out.map((l) => (JSON.parse(l) as Line).msg)).toContain(
      'Auth: anonymous (no credential needed: every caller is the owner of the default organization)',
    );

    for (const overrides of [{ server: { host: '127.0.0.1' } }, { server: { host: '::1' } }, { server: { host: '0.0.0.0' }, auth: { enabled: true } }]) {
      const quiet = captured('json');
      logStartBanner(quiet.log, config({ ...overrides, storage: { backend: 'memory' } }), 'http://x');
      expect(
        quiet.out.map((l) => JSON.parse(l) as Line).filter((l) => l.level === 40),
        JSON.stringify(overrides),
      ).toEqual([]);
    }
  });

  it('names a docdb store by host and database, never its credentials', () => {
    const docdb = captured('json');
    logStartBanner(
      docdb.log,
      config({ storage: { backend: 'docdb', uri: 'mongodb://admin:hunter2@db.internal:27017/?tls=true', database: 'pw' }, auth: { enabled: true } }),
      'http://x',
    );
    const all = docdb.out.join('\n');
    expect(all).toContain('Storage: docdb database \\"pw\\" at mongodb://db.internal:27017');
    expect(all).not.toContain('hunter2');
    expect(all).toContain('Auth: accounts');
  });

  it('pretty format: one human-readable line per event', () => {
    const pretty = captured('pretty');
    pretty.log.info({ request_id: 'abc-123', method: 'GET', path: '/api/v1/health', status: 200, duration_ms: 1.5 }, 'GET /api/v1/health 200 1.5ms');
    expect(pretty.out).toHaveLength(1);
    expect(pretty.out[0]).toMatch(/^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}\] INFO: GET \/api\/v1\/health 200 1\.5ms \{"request_id":"abc-123"\}$/);
  });
});
