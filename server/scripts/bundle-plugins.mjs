// esbuild plugins of the server bundle (build.mjs), for start-up time and memory at rest: the
// code a process compiles and keeps at start is what the bundle's eager graph holds.
//
// - dedupePackages: npm leaves several copies of one package version in nested node_modules
//   (Express 5's accepts, send, type-is and express itself each carry mime-types 3.0.2 and
//   mime-db 1.54.0); bundled as they are, each copy is compiled, evaluated and builds its own
//   tables at start. Every import of such a copy resolves to one of them instead, when the copies'
//   own dependencies resolve to the same versions too (so the shared copy runs as each would).
// - lazyModules: a large module that only a later request needs (js-tiktoken's o200k_base ranks,
//   2.3 MB of source, read only when a prompt is tokenised) becomes a stub whose default export
//   loads the module on its first property access; the module is copied beside the bundle.
// - lazyDataFiles: data a package already `require`s inside a function, on first use (iconv-lite's
//   code-page tables, 0.4 MB, for a request body in a legacy Asian charset), is left out of the
//   bundle and copied beside it, so start-up neither compiles nor keeps its source.
// - lazyExports: re-exports nobody uses (zod's 60 locales on `z.locales`) become stubs that load
//   the package's own CommonJS build on first call.
// - jsonAsParse: a large JSON file a package requires (mime-db's table, 0.16 MB, loaded by Express
//   at start) is bundled as `JSON.parse` of one string instead of an object literal, which V8
//   parses and evaluates slower (about 10 against 15 ms for mime-db).
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, sep } from 'node:path';

/** `dir`/package.json's name, version and dependencies; null when unreadable. */
function manifest(dir) {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return { name: pkg.name, version: pkg.version, dependencies: Object.keys(pkg.dependencies ?? {}) };
  } catch {
    return null;
  }
}

/** The folder of package `name` as Node resolves it from package folder `from` (walking up node_modules); null when none. */
function packageDirFrom(from, name) {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = basename(dir) === 'node_modules' ? null : join(dir, 'node_modules', name);
    if (candidate && existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return null;
  }
}

/** Every installed copy of package `name` under `root`/node_modules (top level and one level nested, scoped too). */
function installedCopies(root, name) {
  const top = join(root, 'node_modules');
  const dirs = [join(top, name)];
  for (const entry of readdirSync(top)) {
    if (entry.startsWith('.')) continue;
    const owners = entry.startsWith('@') ? readdirSync(join(top, entry)).map((e) => join(top, entry, e)) : [join(top, entry)];
    for (const owner of owners) dirs.push(join(owner, 'node_modules', name));
  }
  return dirs.filter((d) => existsSync(join(d, 'package.json'))).sort();
}

/** The package folder holding `file` (the path up to and including `node_modules/<name>`), or null. */
function packageDirOf(file) {
  const marker = `${sep}node_modules${sep}`;
  const at = file.lastIndexOf(marker);
  if (at === -1) return null;
  const rest = file.slice(at + marker.length).split(sep);
  const nameParts = rest[0].startsWith('@') ? 2 : 1;
  return { dir: file.slice(0, at + marker.length) + rest.slice(0, nameParts).join(sep), name: rest.slice(0, nameParts).join('/') };
}

/** True when every dependency of the packages in `a` and `b` resolves to the same version from both. */
function sameDependencies(a, b, deps) {
  return deps.every((dep) => {
    const fromA = packageDirFrom(a, dep);
    const fromB = packageDirFrom(b, dep);
    return fromA !== null && fromB !== null && manifest(fromA)?.version === manifest(fromB)?.version;
  });
}

/**
 * Resolves every import of a package copy to the first (by path) installed copy of the same name
 * and version whose dependencies resolve alike. `root` is the repository root.
 */
export function dedupePackages(root) {
  /** package folder → the folder its imports go to */
  const canonical = new Map();
  const canonicalOf = (dir, name) => {
    if (canonical.has(dir)) return canonical.get(dir);
    const own = manifest(dir);
    let chosen = dir;
    if (own) {
      for (const other of installedCopies(root, name)) {
        if (other === dir) break;
        if (manifest(other)?.version === own.version && sameDependencies(dir, other, own.dependencies)) {
          chosen = other;
          break;
        }
      }
    }
    canonical.set(dir, chosen);
    return chosen;
  };
  return {
    name: 'dedupe-packages',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.pluginData?.dedupe || args.kind === 'entry-point') return undefined;
        const resolved = await build.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          importer: args.importer,
          pluginData: { dedupe: true },
        });
        if (resolved.errors.length > 0 || resolved.external || !resolved.path) return undefined;
        const pkg = packageDirOf(resolved.path);
        if (!pkg) return undefined;
        const target = canonicalOf(pkg.dir, pkg.name);
        if (target === pkg.dir) return undefined;
        return { path: target + resolved.path.slice(pkg.dir.length), sideEffects: resolved.sideEffects };
      });
    },
  };
}

/**
 * Loads each module of `specifiers` on first use instead of at start (see the top of this file).
 * The module must be CommonJS-loadable (its `require` condition) and used only through its
 * default export's properties. `root` resolves the specifiers; `outdir` is where the build
 * writes (each module is copied there under its file name).
 */
export function lazyModules(root, specifiers, outdir) {
  const require = createRequire(join(root, 'engine/package.json'));
  const files = new Map(specifiers.map((s) => [s, require.resolve(s)]));
  return {
    name: 'lazy-modules',
    setup(build) {
      const filter = new RegExp(`^(${specifiers.map((s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
      build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'lazy-module' }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-module' }, (args) => ({
        loader: 'js',
        contents: `import { createRequire } from 'node:module';
let loaded;
const load = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(`./${basename(files.get(args.path))}`)}));
export default new Proxy({}, {
  get: (_, key) => load()[key],
  has: (_, key) => key in load(),
  ownKeys: () => Reflect.ownKeys(load()),
  getOwnPropertyDescriptor: (_, key) => ({ ...Reflect.getOwnPropertyDescriptor(load(), key), configurable: true }),
});
`,
      }));
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        for (const file of files.values()) copyFileSync(file, join(outdir, basename(file)));
      });
    },
  };
}

/**
 * Leaves each folder of data files out of the bundle (see the top of this file): a `require()` of
 * `./<folder>/<file>` from the module `from` (a path in node_modules) is kept as a require of
 * `./<as>-<file>` beside the bundle, where each file of the folder is copied (flat, so a build
 * renames them into place like its chunks). Only for requires that run on
 * first use (inside a function), which the package must already do. `root` is the repository
 * root; `outdir` is where the build writes.
 */
export function lazyDataFiles(root, folders, outdir) {
  const entries = folders.map((f) => ({ ...f, module: join(root, 'node_modules', f.from), dir: join(root, 'node_modules', f.folder) }));
  return {
    name: 'lazy-data-files',
    setup(build) {
      build.onResolve({ filter: /^\.\/[^/]+\/[^/]+$/ }, (args) => {
        const entry = entries.find((e) => e.module === args.importer && join(dirname(args.importer), args.path).startsWith(e.dir + sep));
        if (!entry || args.kind !== 'require-call') return undefined;
        return { path: `./${entry.as}-${basename(args.path)}`, external: true };
      });
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        for (const e of entries) for (const file of readdirSync(e.dir)) copyFileSync(join(e.dir, file), join(outdir, `${e.as}-${file}`));
      });
    },
  };
}

/**
 * Keeps only the `keep` exports of each module `file` (a path in node_modules re-exporting one
 * function per line, `export { default as <name> } from "./<file>.js"`) in the bundle; every other
 * export becomes a function that loads the package's CommonJS build (`require`, from
 * node_modules) on its first call and forwards to it. For zod's 60 locales (0.3 MB of source):
 * zod re-exports them all on `z.locales`, the server uses none, zod itself only `en`.
 */
export function lazyExports(root, modules) {
  const entries = modules.map((m) => ({ ...m, path: join(root, 'node_modules', m.file) }));
  return {
    name: 'lazy-exports',
    setup(build) {
      build.onResolve({ filter: /\/index\.js$/ }, (args) => {
        const entry = entries.find((e) => e.path === join(args.resolveDir, args.path));
        return entry ? { path: entry.path, namespace: 'lazy-exports' } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-exports' }, (args) => {
        const entry = entries.find((e) => e.path === args.path);
        const names = [...readFileSync(entry.path, 'utf8').matchAll(/^export \{ default as (\w+) \} from "\.\/([\w-]+)\.js";$/gm)];
        const kept = names.filter(([, name]) => entry.keep.includes(name));
        const lazy = names.filter(([, name]) => !entry.keep.includes(name));
        const lines = [
          "import { createRequire } from 'node:module';",
          ...kept.map(([, name, file]) => `export { default as ${name} } from ${JSON.stringify(join(dirname(entry.path), `${file}.js`))};`),
          'let loaded;',
          `const load = () => (loaded ??= createRequire(import.meta.url)(${JSON.stringify(entry.require)}));`,
          ...lazy.map(([, name]) => `export const ${name} = (...args) => load().${name}(...args);`),
        ];
        return { loader: 'js', contents: lines.join('\n'), resolveDir: dirname(entry.path) };
      });
    },
  };
}

/**
 * Bundles each `.json` file under node_modules of at least `minBytes` as
 * `module.exports = JSON.parse("<its text>")` (see the top of this file). The value is the same
 * object the JSON loader would give; named imports of its keys still work (esbuild's CommonJS
 * interop).
 */
export function jsonAsParse(minBytes) {
  return {
    name: 'json-as-parse',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.json$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        if (text.length < minBytes) return undefined;
        // Parsed and re-serialised: the file's own text is checked as JSON here, at build time.
        return { loader: 'js', contents: `module.exports = JSON.parse(${JSON.stringify(JSON.stringify(JSON.parse(text)))});` };
      });
    },
  };
}
