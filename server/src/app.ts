import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { EngineContext } from '@planwarden/engine/context/engine-context';
import type { Logger } from '@planwarden/engine/core/logger';
import { recordSpan } from '@planwarden/engine/telemetry/spans';
import type { IdentityServices } from './auth/identity';
import { clientIp } from './auth/ip';
import { authorizeRoute } from './auth/policy';
import { chain } from './http/chain';
import { crossSiteGuard, requireJsonBody } from './auth/csrf';
import { errorHandler } from './http/errors';
import { jsonDepthGuard } from './http/json-depth-guard';
import { installLazyCookies } from './http/lazy-cookies';
import { prefixDispatcher } from './http/prefix-dispatch';
import { requestLog } from './http/request-log';
import { queryValidator } from './http/query';
import type { Principal, RequestContext } from './http/request-context';
import { API_BASE, POLICIES, type RouteDef } from './http/route';
import { sendStreamed } from './http/stream-reply';

const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const DEFAULT_JSON_LIMIT = 1024 * 1024;

export interface AppOptions {
  readonly engine: EngineContext;
  readonly log: Logger;
  readonly identity: IdentityServices;
  readonly routes: readonly RouteDef[];
  /** Extra handlers mounted at the root before the 404 handler (the MCP endpoint at /mcp). */
  readonly mounts?: readonly { readonly path: string; readonly handler: express.RequestHandler }[];
  /** Handlers run on every request before routing (the platform settings refresh). */
  readonly beforeRoutes?: readonly express.RequestHandler[];
}

/** X-Request-ID on every response; a caller's well-formed value is honoured (identity-api.md "Spans"). */
function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given && REQUEST_ID_PATTERN.test(given) ? given : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-ID', id);
  next();
}

/**
 * The route's declared query parameters (http/query.ts: 400 unknown parameter or filter value,
 * 422 other refused values), then its body: raw bytes, or JSON only under a JSON media type
 * (http/csrf.ts: 415 otherwise), within the route's size limit (413).
 */
function bodyParser(def: RouteDef): express.RequestHandler {
  const limit = typeof def.maxBodyBytes === 'function' ? def.maxBodyBytes() : (def.maxBodyBytes ?? DEFAULT_JSON_LIMIT);
  const steps: express.RequestHandler[] = [queryValidator(def.query)];
  if (def.body === 'text') steps.push(express.raw({ type: () => true, limit }));
  if (def.body === 'json') steps.push(requireJsonBody, express.json({ type: () => true, limit }));
  return chain(steps);
}

const PUBLIC_PRINCIPAL: Principal = { kind: 'anonymous', orgId: null, role: null, isSuperadmin: false, userId: null, keyId: null };

/**
 * Who a span is attributed to (identity-api.md "Spans"): a session's user_id, else the service
 * key as key_id (`_anon`/`_bootstrap` for the anonymous and bootstrap principals); auth_type
 * for request spans. One helper for the request span and the route's own span.
 */
export function spanActor(p: Principal): { keyId: string | null; userId: string | null; authType: 'session' | 'anonymous' | 'api_key' } {
  const keyId = p.keyId ?? (p.kind === 'anonymous' ? '_anon' : p.kind === 'bootstrap_key' ? '_bootstrap' : null);
  const authType = p.kind === 'session' ? 'session' : p.kind === 'anonymous' ? 'anonymous' : 'api_key';
  return { keyId: p.userId ? null : keyId, userId: p.userId, authType };
}

/**
 * A request span for every HTTP request that resolved to an org (identity-api.md "Spans"):
 * trace_id is the X-Request-ID. Recorded on 'finish' into the span store's write buffer.
 */
function requestSpans(engine: EngineContext) {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const p = res.locals.principal as Principal | undefined;
      if (!p?.orgId) return;
      const { keyId, userId, authType } = spanActor(p);
      recordSpan(engine, {
        orgId: p.orgId,
        traceId: String(res.locals.requestId),
        type: 'request',
        durationMs: Number(process.hrtime.bigint() - started) / 1e6,
        keyId,
        userId,
        data: { method: req.method, path: req.baseUrl + (req.route?.path ?? req.path), status_code: res.statusCode, auth_type: authType },
      });
    });
    next();
  };
}

/**
 * Builds the Express app: request ids, per-route authentication and policy, body parsing with
 * the route's size limit, the one error middleware. Routes are mounted under /api/v1;
 * `/health` is also answered at the root (DESIGN.md decisions).
 */
export function createApp(options: AppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // No weak ETag (a SHA-1 over every JSON body): API answers are not cached by clients; /rules sets its own.
  app.set('etag', false);
  app.set('query parser', 'simple');
  installLazyCookies(app); // req.cookies parsed when first read
  // One app-level layer for the whole per-request pipeline (docs/decisions.md "Request pipeline"), in this order.
  app.use(
    chain([
      requestId,
      ...(options.beforeRoutes ?? []),
      requestLog(options.log, API_BASE, options.routes),
      crossSiteGuard(() => options.identity.config.server),
      requestSpans(options.engine),
    ]),
  );
  const trustProxy = () => options.identity.config.server.trust_proxy;

  // Each route's steps as one handler: authenticate before reading the body (an unauthenticated
  // caller cannot make us buffer 10 MB), then query and body, then the handler.
  const handlers = new Map<RouteDef, express.RequestHandler>();
  for (const def of options.routes) {
    if (!POLICIES.includes(def.policy)) throw new Error(`route ${def.method.toUpperCase()} ${def.path} declares no known policy`);
    handlers.set(
      def,
      chain([
        async (req, res, next) => {
          try {
            // Policy checks (lock 423, 2FA 403, tenancy 404, role 403) read the org and membership.
            const principal = def.policy === 'public' ? PUBLIC_PRINCIPAL : await options.identity.authenticator.authenticate(req);
            // The effective principal (a session at the lower of its role claim and current membership role).
            res.locals.principal = await authorizeRoute(principal, def, req.params, options.engine.stores);
            next();
          } catch (error) {
            next(error);
          }
        },
        bodyParser(def),
        jsonDepthGuard(def),
        async (req, res, next) => {
          try {
            const principal = res.locals.principal;
            const ctx: RequestContext = {
              principal,
              orgId: principal.orgId ?? '',
              requestId: res.locals.requestId,
              log: options.log,
              now: options.engine.now,
              engine: options.engine,
              ip: clientIp(req, trustProxy()),
            };
            const started = process.hrtime.bigint();
            const reply = await def.handler(ctx, req);
            const facts = def.span && (reply.status ?? 200) < 300 ? def.span(req, reply) : null;
            if (facts && principal.orgId) {
              const { keyId, userId } = spanActor(principal);
              recordSpan(options.engine, {
                orgId: principal.orgId,
                traceId: ctx.requestId,
                type: facts.type,
                data: facts.data,
                durationMs: Number(process.hrtime.bigint() - started) / 1e6,
                keyId,
                userId,
              });
            }
            for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
            res.status(reply.status ?? 200);
            if (reply.stream) {
              await sendStreamed(res, reply.contentType ?? 'application/json', reply.stream);
            } else if (reply.contentType) {
              res.type(reply.contentType).send(reply.body as string);
            } else if (reply.body === undefined) {
              res.end();
            } else {
              res.json(reply.body);
            }
          } catch (error) {
            next(error);
          }
        },
      ]),
    );
  }
  const register = (def: RouteDef) => (router: express.Router) => {
    router[def.method](def.path, handlers.get(def)!);
  };
  // Requests go to the routes of their first path segment (http/prefix-dispatch.ts); the complete
  // router after it (the one tests and docs introspect) sees only paths no route matches.
  const dispatch = prefixDispatcher(options.routes.map((def) => ({ path: def.path, register: register(def) })));
  const router = express.Router();
  for (const def of options.routes) register(def)(router);
  app.use(API_BASE, dispatch, router);
  for (const mount of options.mounts ?? []) app.use(mount.path, mount.handler);
  const health = options.routes.find((r) => r.path === '/health');
  if (health) app.get('/health', (req, res, next) => dispatch(Object.assign(req, { url: '/health' }), res, next));
  app.use((req, res) => {
    res.status(404).json({ detail: `No route for ${req.method} ${req.path}` });
  });
  app.use(errorHandler(options.log));
  return app;
}
