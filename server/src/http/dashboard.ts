import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';

/** Where `npm run build:web` writes the dashboard (apps/web/dist). */
export const DASHBOARD_DIST = resolve(import.meta.dirname, '../../../apps/web/dist');

/** Paths the dashboard never answers: the API, the MCP endpoint and the health probe. */
const RESERVED = /^\/(api|mcp|health)(\/|$)/;

/**
 * The dashboard's Content-Security-Policy (issue 9): scripts from this origin only (no
 * 'unsafe-inline', no eval), API calls to this origin, images from here and data: (QR codes),
 * no plugins, no framing by other sites. Inline styles are allowed for the layout libraries'
 * computed style attributes; the report frame is sandboxed without scripts. Forms may post to
 * this origin and to github.com only (the GitHub App manifest flow of /integrations/codehost is a
 * top-level form POST to `codehost.web_base_url`, https://github.com by default).
 */
export const DASHBOARD_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data: blob:",
  "font-src 'self'", "connect-src 'self'", "frame-src 'self'", "object-src 'none'", "base-uri 'none'",
  "form-action 'self' https://github.com", "frame-ancestors 'none'",
].join('; ');

function securityHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/**
 * Serves the built dashboard (issue 9) at `/`: hashed assets under /assets (cached a year),
 * other files of dist/, and index.html for every other GET/HEAD that accepts HTML (the SPA's
 * client routes: /login, /findings?namespace=…, /admin/settings/sign-in …), never for /api,
 * /mcp or /health. When dist/index.html is missing (the build has not run) every request
 * falls through, so the landing page of http/docs.ts answers `/`. `dist` is for tests.
 */
export function dashboardRouter(dist: string = DASHBOARD_DIST): express.RequestHandler {
  const index = resolve(dist, 'index.html');
  const files = express.static(dist, {
    index: false,
    setHeaders: (res, path) => {
      securityHeaders(res);
      res.setHeader('Cache-Control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  return (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || RESERVED.test(req.path) || !existsSync(index)) {
      next();
      return;
    }
    files(req, res, () => {
      // An asset that is not there is a 404, not the app shell.
      if (req.path.startsWith('/assets/') || !req.accepts('html')) {
        next();
        return;
      }
      securityHeaders(res);
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  };
}
