import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';

/** Where `npm run build:web` writes the dashboard (apps/web/dist). */
export const DASHBOARD_DIST = resolve(import.meta.dirname, '../../../apps/web/dist');

/** Paths the dashboard never answers: the API, the MCP endpoint and the health probe. */
const RESERVED = /^\/(api|mcp|health)(\/|$)/;

/** An http(s) origin as a CSP host-source: scheme, host name or bracketed IPv6, optional port. */
const CSP_ORIGIN = /^https?:\/\/(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/**
 * The dashboard's Content-Security-Policy (docs/decisions.md "Dashboard CSP and bench"): scripts from this origin only (no
 * 'unsafe-inline', no eval), API calls to this origin, images from here and data: (QR codes),
 * no plugins, no framing by other sites. Inline styles are allowed for the layout libraries'
 * computed style attributes; the report frame is sandboxed without scripts. Forms may post to
 * this origin and to the origin of `codehost.web_base_url` only (the GitHub App manifest flow of
 * /integrations/codehost is a top-level form POST there: https://github.com by default, the
 * host of a GitHub Enterprise Server otherwise; the path is dropped, CSP 3 §6.3.2 form-action).
 * Throws Error when the URL's origin is not an http(s) host-source (a configuration error,
 * raised at startup; a `;` or space would otherwise add directives).
 */
export function dashboardCsp(codehostWebBaseUrl: string): string {
  const origin = URL.canParse(codehostWebBaseUrl) ? new URL(codehostWebBaseUrl).origin : '';
  if (!CSP_ORIGIN.test(origin)) throw new Error(`invalid configuration: codehost.web_base_url ${JSON.stringify(codehostWebBaseUrl)} is not an http(s) origin`);
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    `form-action 'self' ${origin}`,
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The policy with the default `codehost.web_base_url` (https://github.com). */
export const DASHBOARD_CSP = dashboardCsp('https://github.com');

function securityHeaders(res: Response, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'same-origin');
}

/** What dashboardRouter needs: the configuration (`codehost.web_base_url`) and, for tests, the build directory. */
export interface DashboardOptions {
  readonly config: { readonly codehost: { readonly web_base_url: string } };
  /** Where the build is (default {@link DASHBOARD_DIST}). */
  readonly dist?: string;
}

/**
 * Serves the built dashboard (docs/decisions.md "Dashboard") at `/`: hashed assets under /assets (cached a year),
 * other files of dist/, and index.html for every other GET/HEAD that accepts HTML (the SPA's
 * client routes: /login, /findings?namespace=…, /admin/settings/sign-in …), never for /api,
 * /mcp or /health. When dist/index.html is missing (the build has not run) every request
 * falls through, so the landing page of http/docs.ts answers `/`. Every answer carries
 * {@link dashboardCsp} for the configured `codehost.web_base_url` (read once: it is not a
 * runtime setting). Throws Error at construction when that URL is not an http(s) origin.
 */
export function dashboardRouter({ config, dist = DASHBOARD_DIST }: DashboardOptions): express.RequestHandler {
  const csp = dashboardCsp(config.codehost.web_base_url);
  const index = resolve(dist, 'index.html');
  const files = express.static(dist, {
    index: false,
    setHeaders: (res, path) => {
      securityHeaders(res, csp);
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
      securityHeaders(res, csp);
      res.setHeader('Cache-Control', 'no-cache');
      res.sendFile(index);
    });
  };
}
