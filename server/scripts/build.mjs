// Compiles the team server for `npm start` (start-up time and memory at rest, no
// TypeScript compiler in the running process). One esbuild pass: ESM for Node 20, code split
// into shared chunks, with three entries: main (server/src/main.ts) and the two worker-thread
// bodies (worker-entries.mjs), whose plain-ESM thread entries are copied beside them. What the
// entry loads eagerly is what every start compiles and keeps in memory, so bundle-plugins.mjs
// keeps one copy of each duplicated package version and leaves large first-use data (the
// tokenizer's ranks, iconv-lite's code pages) beside the bundle, loaded when first needed.
//
// Output: server/dist/app/ (gitignored). Three folders below the repository root, like
// server/src/http/ and engine/src/rules/, so paths the sources resolve from `import.meta.url`
// (the dashboard's apps/web/dist, resources/) land on the same files; the entry also sets
// PLANWARDEN_RESOURCES_DIR (main.ts) so rules and templates never depend on that.
//
//   node server/scripts/build.mjs            build (`npm run build:server`)
//   node server/scripts/build.mjs --if-stale build only when a source is newer than the bundle
// `npm start` (start.mjs) makes the same staleness check, then runs the bundle in its process;
// the `planwarden` command (server/bin/planwarden.js) does the same with its own entry
// (server/src/cli/bin.ts) into server/dist/cli.
//
// Concurrency-safe (two test files or two `npm start` may run it at once): each run writes to
// its own temporary folder, then renames the files into place, content-hashed chunks first and
// the entries last, so a process starting meanwhile loads either the old or the new build.
// Exits non-zero only when the build fails.
import { copyFileSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WORKER_ENTRIES, workerDefines } from './worker-entries.mjs';

const root = resolve(import.meta.dirname, '../..');
export const SERVER_DIST = join(root, 'server/dist/app');
/** The compiled `npm start` entry. */
export const SERVER_MAIN = join(SERVER_DIST, 'main.js');
/** The compiled `planwarden` command (server/bin/planwarden.js runs it): the same build, its own entry. */
export const CLI_DIST = join(root, 'server/dist/cli');
export const CLI_MAIN = join(CLI_DIST, 'main.js');

/**
 * Packages left in node_modules: native addons and drivers (better-sqlite3, mongodb and its
 * optional native helpers), and tsx (only the uncompiled worker paths reach for it).
 */
const EXTERNAL = [
  'better-sqlite3',
  'mongodb',
  'kerberos',
  'snappy',
  '@mongodb-js/zstd',
  'mongodb-client-encryption',
  'gcp-metadata',
  'socks',
  'aws4',
  '@aws-sdk/credential-providers',
  'tsx',
  'tsx/*',
];

/** Large modules loaded on first use, not at start (bundle-plugins.mjs lazyModules). */
const LAZY = ['js-tiktoken/ranks/o200k_base'];
/** Data folders a package requires on first use, kept beside the bundle (bundle-plugins.mjs lazyDataFiles). */
const LAZY_DATA = [{ from: 'iconv-lite/encodings/dbcs-data.js', folder: 'iconv-lite/encodings/tables', as: 'iconv-lite-tables' }];
/** Re-exports the server never uses, loaded from node_modules if ever called (bundle-plugins.mjs lazyExports). */
const LAZY_EXPORTS = [{ file: 'zod/v4/locales/index.js', require: 'zod/v4/locales', keep: ['en'] }];

/** JSON files from node_modules at least this large are bundled as JSON.parse (bundle-plugins.mjs jsonAsParse). */
const JSON_PARSE_MIN_BYTES = 16 * 1024;

/** Everything whose change makes the bundle stale (test files excluded). */
const SOURCES = ['engine/src', 'server/src', 'server/scripts', 'package.json', 'engine/package.json', 'server/package.json', 'node_modules/.package-lock.json'];
/** Old content-hashed chunks a running process might still import lazily are kept this long. */
const STALE_CHUNK_MS = 60 * 60 * 1000;

/**
 * True when a file under `path` (a file or a folder; test files excluded) was modified after
 * `time` (ms). Stops at the first such file; one stat per file, none per folder (the walk runs
 * on every start of the command and of `npm start`).
 */
function modifiedAfter(path, time) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return false;
  return stat.isDirectory() ? folderModifiedAfter(path, time) : stat.mtimeMs > time;
}

function folderModifiedAfter(folder, time) {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.name.endsWith('.test.ts')) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory() ? folderModifiedAfter(path, time) : (statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) > time) return true;
  }
  return false;
}

/**
 * True when the bundle whose entry is `main` (default the server's) is missing or older than any
 * source (the entry's mtime is the build's start).
 */
export function isStale(main = SERVER_MAIN) {
  const entry = statSync(main, { throwIfNoEntry: false });
  if (!entry) return true;
  return SOURCES.some((p) => modifiedAfter(join(root, p), entry.mtimeMs));
}

/**
 * Builds into a private temporary folder, then moves the files into SERVER_DIST (chunks first,
 * entries last). Resolves with the build's duration in ms; rejects on a build error.
 */
export function buildServer() {
  return buildBundle({ outdir: SERVER_DIST, main: join(root, 'server/src/main.ts') });
}

/** Builds the `planwarden` command into CLI_DIST, as buildServer does the server. */
export function buildCli() {
  return buildBundle({ outdir: CLI_DIST, main: join(root, 'server/src/cli/bin.ts') });
}

/**
 * The same build with another main entry into another folder (the benchmarks compile
 * bench/server-child.ts this way, so they measure what `npm start` runs). `outdir` must sit
 * three folders below the repository root (see above).
 */
export async function buildBundle({ outdir, main }) {
  const started = Date.now();
  mkdirSync(outdir, { recursive: true });
  const tmp = join(outdir, '..', `.tmp-${basename(outdir)}-${process.pid}-${started}`);
  // Loaded here, not at the top: the --if-stale check of every `npm start` should not pay for them.
  const { build } = await import('esbuild');
  const { dedupePackages, jsonAsParse, lazyDataFiles, lazyExports, lazyModules } = await import('./bundle-plugins.mjs');
  try {
    await build({
      entryPoints: {
        main,
        ...Object.fromEntries(WORKER_ENTRIES.map((w) => [w.name, w.body])),
      },
      outdir: tmp,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      chunkNames: '[name]-[hash]',
      external: EXTERNAL,
      plugins: [
        dedupePackages(root),
        lazyModules(root, LAZY, tmp),
        lazyDataFiles(root, LAZY_DATA, tmp),
        lazyExports(root, LAZY_EXPORTS),
        jsonAsParse(JSON_PARSE_MIN_BYTES),
      ],
      define: { ...workerDefines(), __PLANWARDEN_RESOURCES_DIR__: JSON.stringify('../../../resources/') },
      // CommonJS packages inside an ESM bundle still call require() for Node built-ins.
      banner: { js: "import { createRequire as __planwardenRequire } from 'node:module'; const require = __planwardenRequire(import.meta.url);" },
      // No comments, no indentation: V8 keeps every script's source in memory, and a
      // comment with a character beyond Latin-1 (—, →) makes it a two-byte string of twice
      // the size. Names are kept (readable stack traces); the linked source maps give lines
      // (node --enable-source-maps).
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: 'linked',
      legalComments: 'none',
      charset: 'ascii',
      logLevel: 'warning',
    });
    for (const w of WORKER_ENTRIES) copyFileSync(w.thread, join(tmp, basename(w.thread)));
    const entries = new Set(['main.js', 'main.js.map', ...WORKER_ENTRIES.flatMap((w) => [`${w.name}.js`, `${w.name}.js.map`])]);
    const files = readdirSync(tmp);
    const ordered = [...files.filter((f) => !entries.has(f)), ...files.filter((f) => entries.has(f) && f !== 'main.js'), 'main.js'];
    const stamp = new Date(started);
    for (const file of ordered) {
      if (file === 'main.js') utimesSync(join(tmp, file), stamp, stamp);
      renameSync(join(tmp, file), join(outdir, file));
    }
    pruneOldChunks(outdir, new Set(files));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return Date.now() - started;
}

/** Removes chunks of earlier builds that this one no longer has, once older than STALE_CHUNK_MS. */
function pruneOldChunks(outdir, current) {
  const cutoff = Date.now() - STALE_CHUNK_MS;
  for (const file of readdirSync(outdir)) {
    if (current.has(file)) continue;
    const path = join(outdir, file);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // removed by a concurrent build
    }
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && !isStale()) process.exit(0);
  buildServer().then(
    (ms) => {
      if (!ifStale || process.stdout.isTTY) console.log(`Built the server (server/dist/app) in ${ms} ms`);
    },
    (error) => {
      console.error(`Server build failed: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
