/**
 * Where the test corpus lives: `tests/corpus/`, a byte-identical copy of real inputs from public
 * projects (kinds, sources and licences in `tests/corpus/MANIFEST.tsv`). Tests, fakes and benchmarks
 * read it through this module only, so the repository never reaches outside itself.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** `<repo>/tests/corpus/` as a file URL (ends with a slash). */
export const CORPUS = new URL('./corpus/', import.meta.url);
/** `<repo>/tests/corpus/` as a path (ends with a separator). */
export const CORPUS_DIR = fileURLToPath(CORPUS);

/** The bytes of one corpus file, by its path relative to the corpus root (e.g. `tfplan-json/x.json`). */
export function corpusFile(relative: string): Buffer {
  return readFileSync(join(CORPUS_DIR, relative));
}

/** The corpus files of one folder whose names end with `suffix`, sorted, as `folder/name` paths. */
export function corpusFiles(folder: string, suffix = ''): string[] {
  return readdirSync(join(CORPUS_DIR, folder))
    .filter((f) => f.endsWith(suffix))
    .sort()
    .map((f) => `${folder}/${f}`);
}
