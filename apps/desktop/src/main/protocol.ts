import { app, net, protocol, session } from 'electron';
import { pathToFileURL } from 'node:url';
import { RENDERER_CSP, rendererFile } from '../core/renderer-files';

/** Must run before `app.whenReady()`: `app:` behaves like https (secure, standard origin, fetch). */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true } }]);
}

/**
 * Serves the dashboard build from `rendererDir` at `app://planwarden/…` with the strict CSP
 * (which file answers: core/renderer-files.ts `rendererFile`; none → 404). Every other
 * scheme's requests from the renderer are refused.
 */
export function serveRenderer(rendererDir: string): void {
  protocol.handle('app', async (request) => {
    const file = rendererFile(rendererDir, new URL(request.url).pathname);
    if (file === null) return new Response('Not found', { status: 404 });
    const res = await net.fetch(pathToFileURL(file).toString());
    const headers = new Headers(res.headers);
    headers.set('content-security-policy', RENDERER_CSP);
    headers.set('x-content-type-options', 'nosniff');
    return new Response(res.body, { status: res.status, headers });
  });
  // No remote content: the renderer may load app: (and devtools) only; permissions all refused.
  session.defaultSession.webRequest.onBeforeRequest((details, callback) => {
    const allowed =
      details.url.startsWith('app://') ||
      details.url.startsWith('devtools://') ||
      details.url.startsWith('data:') ||
      details.url.startsWith('blob:') ||
      (!app.isPackaged && process.env.ELECTRON_RENDERER_URL !== undefined && details.url.startsWith(process.env.ELECTRON_RENDERER_URL));
    callback({ cancel: !allowed });
  });
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
}
