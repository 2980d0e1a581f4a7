import { existsSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

/** The renderer's origin: the dashboard build served by the `app:` protocol (main/protocol.ts). */
export const RENDERER_ORIGIN = 'app://planwarden';

/**
 * The strict CSP of the renderer: its own scripts and styles only, no inline script, no
 * remote content, no network at all (the API travels over IPC), no frames, no plugins.
 */
export const RENDERER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'none'",
  "worker-src 'self' blob:",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The file of the dashboard build (`rendererDir`, apps/desktop/out/renderer) that answers a
 * request for `pathname` (URL path, percent-encoded): the file itself; index.html for a path
 * without an extension that is not a file (the dashboard's client routes, e.g. /jobs/abc);
 * null (answer 404) for a missing file with an extension, a malformed encoding, or a path
 * escaping the folder (`/../`, encoded or not).
 */
export function rendererFile(rendererDir: string, pathname: string): string | null {
  const root = normalize(rendererDir + sep);
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const file = normalize(join(root, decoded));
  if (!file.startsWith(root)) return null;
  if (existsSync(file) && !statSync(file).isDirectory()) return file;
  return extname(file) === '' ? join(root, 'index.html') : null;
}
