import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@planwarden/engine/core/logger';

/** Path parameters that are bearer secrets (invitation and shared-report tokens): never logged. */
const SECRET_PARAM = /^:token$/;

/**
 * Matchers for the routes carrying a secret path parameter: each maps a concrete path to the
 * same path with the secret segments replaced by `***` (`/api/v1/invite/abc` → `/api/v1/invite/***`).
 */
function secretPathMaskers(base: string, routes: readonly { readonly path: string }[]): ((path: string) => string | null)[] {
  return routes
    .filter((r) => r.path.split('/').some((seg) => SECRET_PARAM.test(seg)))
    .map((r) => {
      const segments = `${base}${r.path}`.split('/');
      const pattern = new RegExp(`^${segments.map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`, 'i');
      return (path: string) => {
        if (!pattern.test(path)) return null;
        const parts = path.split('/');
        return segments.map((seg, i) => (SECRET_PARAM.test(seg) ? '***' : parts[i])).join('/');
      };
    });
}

/**
 * One `info` line per finished request: `{request_id, method, path, status, duration_ms}` and
 * the message `GET /api/v1/health 200 1.2ms`. Never logs headers, cookies or the query string
 * (credentials travel there: X-API-Key, Authorization, the session cookie, `?api_key=`), and
 * masks secret path parameters (`:token` of `routes`, mounted under `base`) as `***`. Mount
 * after the request-id middleware. The line is built when the request ends, and not at all when
 * the logger's level is above `info` (pino `isLevelEnabled`).
 */
export function requestLog(log: Logger, base: string, routes: readonly { readonly path: string }[]) {
  const maskers = secretPathMaskers(base, routes);
  const loggablePath = (path: string) => {
    for (const mask of maskers) {
      const masked = mask(path);
      if (masked !== null) return masked;
    }
    return path;
  };
  // A pino logger below `info` (e.g. `silent`) says so: then no line is built at all.
  const enabled =
    typeof (log as { isLevelEnabled?: unknown }).isLevelEnabled === 'function'
      ? () => (log as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled('info')
      : () => true;
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const method = req.method;
    const rawPath = req.path; // now: routers rewrite req.url while the request is handled
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      if (!enabled()) return;
      const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100;
      const status = res.headersSent ? res.statusCode : 499; // 499: the client went away first
      const path = loggablePath(rawPath);
      log.info({ request_id: res.locals.requestId, method, path, status, duration_ms: durationMs }, `${method} ${path} ${status} ${durationMs}ms`);
    };
    res.on('finish', finish);
    res.on('close', finish);
    next();
  };
}
