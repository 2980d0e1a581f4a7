import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { EngineContext, Logger } from '@planwarden/engine/context';
import { authenticate, type AuthSettings } from '../auth/authenticate';
import { authorize } from '../auth/policy';
import { errorHandler } from './errors';
import type { RequestContext } from './request-context';
import type { RouteDef } from './route';

export const API_BASE = '/api/v1';
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:\-]{1,128}$/;
const DEFAULT_JSON_LIMIT = 1024 * 1024;

export interface AppOptions {
  readonly engine: EngineContext;
  readonly log: Logger;
  readonly auth: () => AuthSettings;
  readonly routes: readonly RouteDef[];
}

/** X-Request-ID on every response; a caller's well-formed value is honoured (identity-api.md "Spans"). */
function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-ID', id);
  next();
}

function bodyParser(def: RouteDef) {
  const limit = typeof def.maxBodyBytes === 'function' ? def.maxBodyBytes() : def.maxBodyBytes ?? DEFAULT_JSON_LIMIT;
  if (def.body === 'text') return express.raw({ type: () => true, limit });
  if (def.body === 'json') return express.json({ type: () => true, limit });
  return (_req: Request, _res: Response, next: NextFunction) => next();
}

/**
 * Builds the Express app: request ids, per-route authentication and policy, body parsing with
 * the route's size limit, the one error middleware. Routes are mounted under /api/v1;
 * `/health` is also answered at the root (DESIGN.md decisions).
 */
export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.use(requestId);

  const router = express.Router();
  for (const def of options.routes) {
    if (!def.policy) throw new Error(`route ${def.method.toUpperCase()} ${def.path} declares no policy`);
    // Authenticate before reading the body: an unauthenticated caller cannot make us buffer 10 MB.
    router[def.method](def.path, (req, res, next) => {
      try {
        const principal = def.policy === 'public'
          ? { kind: 'anonymous' as const, orgId: null, role: null, isSuperadmin: false, userId: null, keyId: null }
          : authenticate(req, options.auth());
        authorize(principal, def.policy);
        res.locals.principal = principal;
        next();
      } catch (error) {
        next(error);
      }
    }, bodyParser(def), async (req, res, next) => {
      try {
        const principal = res.locals.principal;
        const ctx: RequestContext = {
          principal,
          orgId: principal.orgId ?? '',
          requestId: res.locals.requestId,
          log: options.log,
          now: options.engine.now,
          engine: options.engine,
        };
        const reply = await def.handler(ctx, req);
        for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
        res.status(reply.status ?? 200);
        if (reply.contentType) {
          res.type(reply.contentType).send(reply.body as string);
        } else if (reply.body === undefined) {
          res.end();
        } else {
          res.json(reply.body);
        }
      } catch (error) {
        next(error);
      }
    });
  }
  app.use(API_BASE, router);
  const health = options.routes.find((r) => r.path === '/health');
  if (health) app.get('/health', (req, res, next) => router(Object.assign(req, { url: '/health' }), res, next));
  app.use((req, res) => {
    res.status(404).json({ detail: `No route for ${req.method} ${req.path}` });
  });
  app.use(errorHandler(options.log));
  return app;
}
