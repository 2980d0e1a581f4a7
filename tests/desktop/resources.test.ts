/**
 * Issue 10, packaged resources: the built-in rules and report templates are found by the desktop
 * app packaged (electron-builder extraResources → <resourcesPath>/resources) and unpackaged (the
 * repository's resources/), and the real bundle of the main process sets that folder before any
 * engine module reads it. The bundle runs under Node with a stand-in `electron` module
 * (tests/desktop/fake-electron), since Electron's binary cannot be downloaded here.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopResourcesDir, PACKAGED_RESOURCES_FOLDER } from '../../apps/desktop/src/core/resources-path';
import { buildDesktopTarget, buildToolMissing, REPO_ROOT } from './build';

const DESKTOP = join(REPO_ROOT, 'apps/desktop');
const REGISTER_FAKE_ELECTRON = join(import.meta.dirname, 'fake-electron/register.mjs');
const builder = JSON.parse(readFileSync(join(DESKTOP, 'package.json'), 'utf8')).build as { extraResources: { from: string; to: string; filter: string[] }[] };

/** What electron-builder's extraResources puts in `<resourcesPath>/`: rules/ and templates/ of the repository's resources/. */
function fakePackagedResourcesPath(): string {
  const resourcesPath = mkdtempSync(join(tmpdir(), 'pw-packaged-'));
  for (const entry of builder.extraResources) {
    for (const folder of entry.filter.map((f) => f.split('/')[0])) {
      cpSync(resolve(DESKTOP, entry.from, folder), join(resourcesPath, entry.to, folder), { recursive: true });
    }
  }
  return resourcesPath;
}

describe('where the desktop app finds resources/', () => {
  it('packaged: <process.resourcesPath>/resources, the folder electron-builder copies resources/ rules and templates to', () => {
    expect(desktopResourcesDir({ isPackaged: true, resourcesPath: '/opt/Planwarden/resources', appPath: '/opt/Planwarden/resources/app.asar' })).toBe(
      join('/opt/Planwarden/resources', 'resources'),
    );
    const copied = builder.extraResources.find((e) => resolve(DESKTOP, e.from) === join(REPO_ROOT, 'resources'));
    expect(copied?.to).toBe(PACKAGED_RESOURCES_FOLDER);
    expect(copied?.filter).toEqual(expect.arrayContaining(['rules/**/*', 'templates/**/*']));
  });

  it("unpackaged: the repository's resources/ from the app path (apps/desktop), with the rules and templates in it", () => {
    const dir = desktopResourcesDir({ isPackaged: false, resourcesPath: '/usr/lib/electron/resources', appPath: DESKTOP });
    expect(dir).toBe(join(REPO_ROOT, 'resources'));
    expect(readdirSync(join(dir, 'rules'))).toContain('terraform');
    expect(existsSync(join(dir, 'templates', 'html.liquid'))).toBe(true);
  });

  it('an explicit PLANWARDEN_RESOURCES_DIR wins; a blank one is ignored', () => {
    expect(desktopResourcesDir({ isPackaged: true, resourcesPath: '/r', appPath: '/a', override: '/home/me/my-rules' })).toBe('/home/me/my-rules');
    expect(desktopResourcesDir({ isPackaged: true, resourcesPath: '/r', appPath: '/a', override: '  ' })).toBe(join('/r', 'resources'));
  });
});

describe.skipIf(buildToolMissing() !== null)('the bundled main process (electron-vite build of apps/desktop/src/main)', () => {
  // Inside apps/desktop (git-ignored out/): the bundle is an ES module by apps/desktop/package.json
  // and resolves its external native modules (better-sqlite3) from the repository's node_modules.
  const outRoot = join(DESKTOP, 'out', `.test-${process.pid}`);
  const packaged: string[] = [];
  let main: string;

  beforeAll(async () => {
    mkdirSync(outRoot, { recursive: true });
    main = await buildDesktopTarget('main', outRoot);
  }, 240_000);
  afterAll(() => {
    rmSync(outRoot, { recursive: true, force: true });
    for (const dir of packaged) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs out/main/index.js under Node with the stand-in electron; returns its exit code, first stdout line and stderr. */
  function runBundle(env: Record<string, string>): {
    status: number | null;
    ready: { resources_dir: string | null; schemes: string[] } | null;
    stderr: string;
  } {
    const run = spawnSync(process.execPath, ['--import', REGISTER_FAKE_ELECTRON, join(main, 'index.js')], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const line = run.stdout.split('\n').find((l) => l.startsWith('{'));
    return { status: run.status, ready: line ? JSON.parse(line) : null, stderr: run.stderr };
  }

  it('holds no absolute path of the machine that built it', () => {
    const files = [join(main, 'index.js'), ...readdirSync(join(main, 'chunks')).map((f) => join(main, 'chunks', f))];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(text.includes(REPO_ROOT), `${file} names ${REPO_ROOT}`).toBe(false);
      expect(text.includes(join(homedir(), 'node_modules')), file).toBe(false);
    }
  });

  it('packaged: loads the whole app with the rules and templates from <resourcesPath>/resources', () => {
    const resourcesPath = fakePackagedResourcesPath();
    packaged.push(resourcesPath);
    const run = runBundle({
      FAKE_ELECTRON_PACKAGED: '1',
      FAKE_ELECTRON_RESOURCES_PATH: resourcesPath,
      FAKE_ELECTRON_APP_PATH: join(resourcesPath, 'app.asar'),
    });
    expect(run.stderr).not.toMatch(/ENOENT|Error/);
    expect(run.status).toBe(0);
    expect(run.ready).toEqual({ ready_requested: true, resources_dir: join(resourcesPath, 'resources'), schemes: ['app'] });
  }, 120_000);

  it('packaged without the resources copied: fails loudly at start, naming the missing template (no silent empty ruleset)', () => {
    const empty = mkdtempSync(join(tmpdir(), 'pw-packaged-empty-'));
    packaged.push(empty);
    const run = runBundle({ FAKE_ELECTRON_PACKAGED: '1', FAKE_ELECTRON_RESOURCES_PATH: empty });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(join(empty, 'resources', 'templates'));
  }, 120_000);

  it("unpackaged (electron-vite dev, `electron .`): the repository's resources/", () => {
    const run = runBundle({ FAKE_ELECTRON_PACKAGED: '0', FAKE_ELECTRON_APP_PATH: DESKTOP });
    expect(run.status).toBe(0);
    expect(run.ready?.resources_dir).toBe(join(REPO_ROOT, 'resources'));
  }, 120_000);
});
