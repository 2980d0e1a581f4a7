import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md describes the repository as it is: every top-level folder (and source
 * file) of each package's src is named in its section of the folder map, and every top-level
 * entry of engine/src and server/src has a place in the import layers that `npm run lint:imports`
 * enforces (.dependency-cruiser.cjs), so no new folder escapes the layering.
 */
const ROOT = join(import.meta.dirname, '..');
const SOURCES = ['engine/src', 'server/src', 'apps/web/src', 'apps/desktop/src'];
const isSource = (name: string) => /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name);

/** The top-level folders (as `name/`) and source files of a package's src. */
function topLevel(src: string): string[] {
  return readdirSync(join(ROOT, src), { withFileTypes: true })
    .filter((e) => e.isDirectory() || isSource(e.name))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name));
}

/** The lines of the folder map under `src/` (its heading line to the next line at the same depth). */
function mapSection(doc: string, src: string): string {
  const lines = doc.split('\n');
  const start = lines.findIndex((line) => line.startsWith(`${src}/ `) || line === `${src}/`);
  if (start < 0) return '';
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^\S/.test(line));
  return (end < 0 ? rest : rest.slice(0, end)).join('\n');
}

describe('docs/architecture.md', () => {
  const doc = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');

  it.each(SOURCES)('names every top-level folder and source file of %s in its folder map', (src) => {
    const section = mapSection(doc, src);
    expect(section, `docs/architecture.md has no folder-map section for ${src}/`).not.toBe('');
    const named = new Set(section.split('\n').map((line) => line.trim().split(/\s+/)[0]));
    const missing = topLevel(src).filter((entry) => !named.has(entry));
    expect(missing, `add these to the ${src}/ section of docs/architecture.md`).toEqual([]);
  });

  it('places every top-level entry of engine/src and server/src in an import layer', () => {
    const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: { name: string }[] };
    const layered = new Set(config.forbidden.map((rule) => rule.name));
    const unplaced = [
      ...topLevel('engine/src').map((entry) => `engine-layer-${entry.replace(/\/$|\.ts$/, '')}`),
      ...topLevel('server/src').map((entry) => `server-layer-${entry.replace(/\/$|\.ts$/, '')}`),
    ].filter((rule) => !layered.has(rule));
    expect(unplaced, 'add these folders to ENGINE_LAYERS / SERVER_LAYERS in .dependency-cruiser.cjs and to docs/architecture.md "Layers"').toEqual([]);
  });
});
