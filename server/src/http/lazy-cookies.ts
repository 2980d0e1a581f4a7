import cookieParser from 'cookie-parser';
import type { Express, Request, Response } from 'express';

const parseCookies = cookieParser();
const noop = () => {};
const PROPERTIES = ['cookies', 'signedCookies'] as const;

/** Runs cookie-parser on `req` now: it sets `req.cookies` and `req.signedCookies` as own data properties. */
function parseNow(req: Request): void {
  const own = req as unknown as Record<string, unknown>;
  // Own placeholders hide the prototype's getters while cookie-parser checks and assigns them.
  for (const name of PROPERTIES) Object.defineProperty(req, name, { configurable: true, enumerable: true, writable: true, value: undefined });
  parseCookies(req, {} as Response, noop); // synchronous: it calls back before returning
  for (const name of PROPERTIES) own[name] ??= Object.create(null);
}

/**
 * cookie-parser's `req.cookies` / `req.signedCookies` for every request of `app`, parsed on
 * first read instead of by a middleware on every request (most API calls carry an API
 * key or no cookie, and never read them). The getters sit on `app.request`, the prototype of
 * the app's requests, so a request that never reads a cookie costs nothing. The values are
 * cookie-parser's own (same decoding, `j:` JSON cookies); assigning either property sets it as
 * a plain value on the request, as with cookie-parser.
 */
export function installLazyCookies(app: Express): void {
  for (const name of PROPERTIES) {
    Object.defineProperty(app.request, name, {
      configurable: true,
      enumerable: true,
      get(this: Request) {
        parseNow(this);
        return (this as unknown as Record<string, unknown>)[name];
      },
      set(this: Request, value: unknown) {
        Object.defineProperty(this, name, { configurable: true, enumerable: true, writable: true, value });
      },
    });
  }
}
