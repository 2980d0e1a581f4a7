import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** A route as the dispatcher groups it: its Express path and how to register it on a router. */
export interface DispatchRoute {
  readonly path: string;
  register(router: express.Router): void;
}

/** The literal first segment of an Express path (`/findings/:id` → `findings`), lower-cased; null when it holds a parameter or pattern. */
function literalFirstSegment(path: string): string | null {
  const match = /^\/([^/]*)/.exec(path);
  if (!match || match[1] === '' || /[:*?(){}\\[\]+!]/.test(match[1])) return null;
  return match[1].toLowerCase();
}

/** The request path's first segment, lower-cased (Express matches routes case-insensitively). */
function requestFirstSegment(url: string): string {
  const rest = url.slice(1); // req.url under the mount: always starts with '/'
  const stop = rest.search(/[/?#]/);
  return (stop === -1 ? rest : rest.slice(0, stop)).toLowerCase();
}

/**
 * Routes grouped by their first path segment (docs/decisions.md "Request pipeline": Express tries every route's path
 * matcher in order, ~200 of them, before reaching a late one). Each literal first segment gets
 * a router holding, in declaration order, its own routes and every route whose first segment is
 * a parameter (those can match any path); a request goes to the router of its first segment, or
 * to the parameter-only router. A path no route in that router matches falls through to `next`
 * (mount the complete router after this one: it answers exactly as before, here only for paths
 * that match nothing). Order and matching are Express's own, so the route that answers is the
 * one the complete router would pick.
 */
export function prefixDispatcher(routes: readonly DispatchRoute[]): RequestHandler {
  const segments = new Set<string>();
  for (const r of routes) {
    const seg = literalFirstSegment(r.path);
    if (seg !== null) segments.add(seg);
  }
  // Each router is built on the first request of its segment: registering a route compiles its
  // path matcher, ~390 of them over all groups, which start-up would otherwise pay before /health.
  const groups = new Map<string, express.Router | null>([...segments].map((seg) => [seg, null]));
  let paramOnly: express.Router | null = null;
  const build = (seg: string | null): express.Router => {
    const router = express.Router();
    for (const r of routes) {
      const own = literalFirstSegment(r.path);
      if (own === null || own === seg) r.register(router);
    }
    return router;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const seg = requestFirstSegment(req.url);
    let group: express.Router;
    if (groups.has(seg)) {
      group = groups.get(seg) ?? build(seg);
      groups.set(seg, group);
    } else {
      group = paramOnly ??= build(null);
    }
    group(req, res, next);
  };
}
